#!/usr/bin/env python3
"""Reference pixels for the filter transformers, written to Tests/TransformersTests/filter-reference.tsv.

Each line is one case: name, layout, width, height, then the expected pixels as hex (tightly packed rows).
`FilterReferenceTests.swift` builds the same input images (the generator below is mirrored there),
runs the transformer the name describes and compares with the tolerance the test states.

How each reference is made, independently of our code
------------------------------------------------------
* blur-*: a true gaussian in float64 with NumPy: the sampled kernel exp(-x^2 / 2 sigma^2) out to
  ceil(4 sigma) each side, normalised, applied along rows and columns with the edge pixels repeated.
  RGBA is premultiplied before and un-premultiplied after (a pixel whose alpha rounds to 0 becomes
  0,0,0,0). Rounding everywhere is floor(x + 0.5), clamped to 0...255.
* pillow-blur-*: Pillow's ImageFilter.GaussianBlur(radius=sigma) (Pillow approximates the gaussian by
  box passes, so it is a looser check of the same thing).
* pillow-sharpen-*: Pillow's ImageFilter.UnsharpMask(radius=sigma, percent=100*amount, threshold).
* sharpen-*: the same unsharp mask with NumPy over the true gaussian above (blurred values rounded to
  bytes first, as SharpenTransformer does): out = in + amount * (in - blur) where |in - blur| > threshold.
* grayscale-rgb: Pillow's convert("L") (BT.601 in 16-bit fixed point); grayscale-rgba: the same
  formula with NumPy, alpha kept.
* adjust-*: brightness added, then (v - 127.5) * contrast + 127.5, then luma + saturation * (v - luma)
  with BT.601 luma of the adjusted values, in float64; alpha kept.
* tint-*: the W3C Compositing and Blending Level 1 formulas. The colour Cs with alpha as (the strength)
  is composited source-atop over each straight-alpha pixel Cb with alpha ab:
  Co = as * ((1 - ab) * Cs + ab * B(Cb, Cs)) + (1 - as) * Cb, alpha unchanged, B the blend mode's function.

Run: python3 scripts/reference/filter-reference.py   (Pillow and NumPy from scripts/python/venv)
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))
import use_venv  # noqa: E402 (the scripts' one Python environment: scripts/python/requirements.txt)

use_venv.ensure()

import numpy as np  # noqa: E402
from PIL import Image, ImageFilter  # noqa: E402

WIDTH, HEIGHT = 48, 40
OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "Tests", "TransformersTests",
                   "filter-reference.tsv")


def sample(x, y, c):
    """Gradients in red and green, an 8-pixel checker in blue, hashed noise of +-16 on everything."""
    h = (x * 374761393 + y * 668265263 + c * 2246822519) & 0xFFFFFFFF
    h = ((h ^ (h >> 13)) * 1274126177) & 0xFFFFFFFF
    noise = (h >> 24) % 33 - 16
    if c == 0:
        v = x * 255 // (WIDTH - 1)
    elif c == 1:
        v = y * 255 // (HEIGHT - 1)
    else:
        v = 220 if ((x // 8) + (y // 8)) % 2 == 0 else 40
    return min(255, max(0, v + noise))


def alpha(x):
    """Opaque on the left third, fading to fully transparent from x = 38."""
    return max(0, 255 - max(0, x - 16) * 12)


def image(layout):
    if layout == "gray8":
        return np.array([[sample(x, y, 2) for x in range(WIDTH)] for y in range(HEIGHT)], dtype=np.uint8)
    rgb = np.array([[[sample(x, y, c) for c in range(3)] for x in range(WIDTH)] for y in range(HEIGHT)],
                   dtype=np.uint8)
    if layout == "rgb8":
        return rgb
    a = np.array([[alpha(x) for x in range(WIDTH)] for _ in range(HEIGHT)], dtype=np.uint8)
    return np.dstack([rgb, a])


def to_bytes(v):
    return np.clip(np.floor(v + 0.5), 0, 255).astype(np.uint8)


def gaussian(a, sigma):
    """True gaussian along both axes of a float64 array (H, W[, C]), edges repeated."""
    r = int(np.ceil(4 * sigma))
    x = np.arange(-r, r + 1)
    k = np.exp(-x * x / (2 * sigma * sigma))
    k /= k.sum()
    for axis in (0, 1):
        pad = [(0, 0)] * a.ndim
        pad[axis] = (r, r)
        p = np.pad(a, pad, mode="edge")
        out = np.zeros_like(a)
        for i, w in enumerate(k):
            s = [slice(None)] * a.ndim
            s[axis] = slice(i, i + a.shape[axis])
            out += w * p[tuple(s)]
        a = out
    return a


def blur(img, sigma):
    f = img.astype(np.float64)
    if img.ndim == 3 and img.shape[2] == 4:
        f[..., :3] *= f[..., 3:4] / 255
        b = gaussian(f, sigma)
        a = to_bytes(b[..., 3])
        safe = np.where(b[..., 3] > 0, b[..., 3], 1)
        rgb = to_bytes(b[..., :3] * 255 / safe[..., None])
        out = np.dstack([rgb, a])
        out[a == 0] = 0
        return out
    return to_bytes(gaussian(f, sigma))


def sharpen(img, sigma, amount, threshold):
    blurred = blur(img, sigma).astype(np.float64)
    f = img.astype(np.float64)
    d = f - blurred
    out = np.where(np.abs(d) > threshold, to_bytes(f + amount * d), img)
    if img.ndim == 3 and img.shape[2] == 4:
        out[..., 3] = img[..., 3]
    return out.astype(np.uint8)


def luma(r, g, b):
    return 0.299 * r + 0.587 * g + 0.114 * b


def adjust(img, brightness, contrast, saturation):
    f = img.astype(np.float64)
    colour = f[..., :3] if img.ndim == 3 else f
    colour = (colour + brightness - 127.5) * contrast + 127.5
    if img.ndim == 3:
        y = luma(colour[..., 0], colour[..., 1], colour[..., 2])[..., None]
        colour = y + saturation * (colour - y)
        out = img.copy()
        out[..., :3] = to_bytes(colour)
        return out
    return to_bytes(colour)


def blend(mode, cb, cs):
    if mode == "normal":
        return np.broadcast_to(cs, cb.shape)
    if mode == "multiply":
        return cb * cs
    if mode == "screen":
        return cb + cs - cb * cs
    if mode == "overlay":
        return blend("hardLight", cs, cb)
    if mode == "darken":
        return np.minimum(cb, cs)
    if mode == "lighten":
        return np.maximum(cb, cs)
    if mode == "hardLight":
        return np.where(cs <= 0.5, blend("multiply", cb, 2 * cs), blend("screen", cb, 2 * cs - 1))
    if mode == "softLight":
        d = np.where(cb <= 0.25, ((16 * cb - 12) * cb + 4) * cb, np.sqrt(cb))
        return np.where(cs <= 0.5, cb - (1 - 2 * cs) * cb * (1 - cb), cb + (2 * cs - 1) * (d - cb))
    if mode == "difference":
        return np.abs(cb - cs)
    if mode == "exclusion":
        return cb + cs - 2 * cb * cs
    raise ValueError(mode)


def tint(img, colour, mode):
    f = img.astype(np.float64) / 255
    cb = f[..., :3]
    ab = f[..., 3:4] if img.shape[2] == 4 else np.ones(cb.shape[:2] + (1,))
    cs = np.array(colour[:3], dtype=np.float64) / 255
    a_s = colour[3] / 255
    co = a_s * ((1 - ab) * cs + ab * blend(mode, cb, cs)) + (1 - a_s) * cb
    out = img.copy()
    out[..., :3] = to_bytes(co * 255)
    return out


def pillow(img, layout, filt):
    mode = {"rgb8": "RGB", "rgba8": "RGBA", "gray8": "L"}[layout]
    return np.asarray(Image.fromarray(img, mode).filter(filt))


def main():
    rgb, rgba, gray = image("rgb8"), image("rgba8"), image("gray8")
    inputs = {"rgb8": rgb, "rgba8": rgba, "gray8": gray}
    cases = []
    for layout, sigma in [("rgb8", 0.8), ("rgb8", 1.5), ("rgb8", 3), ("rgb8", 10), ("rgb8", 24), ("rgb8", 120),
                          ("gray8", 6), ("rgba8", 2), ("rgba8", 8)]:
        cases.append((f"blur:{sigma}", layout, blur(inputs[layout], sigma)))
    for layout, sigma in [("rgb8", 3), ("rgb8", 10)]:
        cases.append((f"pillow-blur:{sigma}", layout, pillow(inputs[layout], layout, ImageFilter.GaussianBlur(sigma))))
    for layout, sigma, amount, threshold in [("rgb8", 1, 1, 0), ("rgb8", 2, 1.5, 4), ("gray8", 0.5, 2, 0),
                                             ("rgba8", 1, 1, 0)]:
        cases.append((f"sharpen:{sigma}:{amount}:{threshold}", layout, sharpen(inputs[layout], sigma, amount, threshold)))
    for layout, sigma, amount, threshold in [("rgb8", 1, 1, 0), ("rgb8", 2, 1.5, 4)]:
        filt = ImageFilter.UnsharpMask(radius=sigma, percent=int(100 * amount), threshold=threshold)
        cases.append((f"pillow-sharpen:{sigma}:{amount}:{threshold}", layout, pillow(inputs[layout], layout, filt)))
    cases.append(("grayscale", "rgb8", np.asarray(Image.fromarray(rgb, "RGB").convert("L"))))
    y = (rgba[..., 0].astype(np.int64) * 19595 + rgba[..., 1].astype(np.int64) * 38470
         + rgba[..., 2].astype(np.int64) * 7471 + 32768) >> 16
    cases.append(("grayscale", "rgba8", np.dstack([y, y, y, rgba[..., 3]]).astype(np.uint8)))
    for layout, b, c, s in [("rgb8", 40, 1.3, 0.5), ("rgb8", -100, 1, 1), ("rgb8", 0, 0.6, 2.5),
                            ("rgba8", 25, 1.1, 0), ("gray8", -30, 1.8, 1)]:
        cases.append((f"adjust:{b}:{c}:{s}", layout, adjust(inputs[layout], b, c, s)))
    colour = (200, 80, 30, 180)
    for mode in ["normal", "multiply", "screen", "overlay", "darken", "lighten", "softLight", "hardLight",
                 "difference", "exclusion"]:
        cases.append((f"tint:{mode}:c8501eb4", "rgba8", tint(rgba, colour, mode)))
    cases.append(("tint:overlay:2040ff80", "rgb8", tint(rgb, (32, 64, 255, 128), "overlay")))
    with open(OUT, "w") as out:
        out.write("# name\tinput layout\twidth\theight\texpected pixels (hex); made by scripts/reference/filter-reference.py\n")
        for name, layout, pixels in cases:
            out.write(f"{name}\t{layout}\t{WIDTH}\t{HEIGHT}\t{pixels.astype(np.uint8).tobytes().hex()}\n")
    print(f"wrote {len(cases)} cases to {os.path.normpath(OUT)}")


if __name__ == "__main__":
    main()
