#!/usr/bin/env python3
"""Reference resamples for ResamplingReferenceTests, written to Tests/TransformersTests/resample-reference.tsv.

A small generated picture (23x19; gray8, rgb8 and rgba8; the formula is in `source`, and the Swift test
builds the same bytes) is resized to a few sizes (down by about 3.3, 2 and 1 x 2.4, one axis only, up by
about 1.8) with each filter, and every output is written as one line:

    filter, layout, source_w, source_h, width, height, reference, hex of the output bytes (rows packed)

`reference` is `pillow` (Pillow's own output) or `float64` (the exact resample: NumPy, float64, one
rounding at the end).

Where the pixels come from
--------------------------
* pillow lines (nearest, bilinear, catmullRom, lanczos3): Pillow's `Image.resize` with NEAREST,
  BILINEAR, BICUBIC (Keys' cubic with a = -0.5, which is Catmull-Rom) and LANCZOS (radius 3). Pillow
  resizes RGBA with premultiplied alpha (it converts to "RGBa" and back), as we do. It rounds and clips
  to 8 bits between its horizontal and vertical passes, which cuts the overshoot of cubic and Lanczos
  kernels at hard edges before the second pass sees it: there it differs from an exact resample by up
  to ~25 levels (a few pixels), while most pixels agree within 1. The test holds Pillow to that.
* float64 lines (every filter but nearest): the exact resample, written here from the kernels'
  definitions with Pillow's coefficient scheme (the kernel stretched by the scale when shrinking, taps
  outside the image dropped and the rest renormalised), premultiplied alpha, one rounding at the end.
  `check_numpy_against_pillow` first checks this code against Pillow: with Pillow's intermediate 8-bit
  rounding and clipping emulated it must equal Pillow's bilinear, Catmull-Rom and Lanczos outputs within
  1 level (gray and RGB; Pillow's fixed-point weights round a few half-way pixels the other way), so the
  weights are Pillow's. Mitchell (which Pillow lacks) uses the same code
  with the Mitchell-Netravali kernel (B = C = 1/3).
* box is an exact area average (each output pixel the coverage-weighted mean of the source pixels under
  it). Pillow's BOX equals it for whole-number ratios only: for fractional ones it gives each touched
  source pixel a full weight.

Run: python3 scripts/reference/resample-reference.py   (Pillow and NumPy from scripts/python/venv)
"""
import math
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))
import use_venv  # noqa: E402 (the scripts' one Python environment: scripts/python/requirements.txt)

use_venv.ensure()

import numpy as np  # noqa: E402
from PIL import Image  # noqa: E402

SOURCE_W, SOURCE_H = 23, 19
SIZES = [(7, 6), (12, 10), (23, 8), (41, 33), (3, 2)]
LAYOUTS = {"gray8": 1, "rgb8": 3, "rgba8": 4}
PILLOW = {"nearest": Image.NEAREST, "bilinear": Image.BILINEAR, "catmullRom": Image.BICUBIC,
          "lanczos3": Image.LANCZOS}
OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "Tests", "TransformersTests",
                   "resample-reference.tsv")


def source(channels):
    """The test picture: diagonal ramps with a wrap (a hard edge), a bright square, and for RGBA an alpha
    ramp with a fully transparent magenta band on the left (its colour must not bleed)."""
    img = np.zeros((SOURCE_H, SOURCE_W, channels), dtype=np.uint8)
    for y in range(SOURCE_H):
        for x in range(SOURCE_W):
            for c in range(channels):
                v = (x * 9 + y * 5 + c * 60) % 256
                if 8 <= x < 14 and 6 <= y < 12:
                    v = 250 - c * 20
                img[y, x, c] = v
            if channels == 4:
                if x < 4:
                    img[y, x] = (255, 0, 255, 0)
                else:
                    img[y, x, 3] = min(255, 60 + (x * 11 + y * 7) % 196)
    return img


def kernel(name):
    if name == "mitchell":
        b = c = 1 / 3

        def k(x):
            x = abs(x)
            if x < 1:
                return ((12 - 9 * b - 6 * c) * x ** 3 + (-18 + 12 * b + 6 * c) * x ** 2 + (6 - 2 * b)) / 6
            if x < 2:
                return ((-b - 6 * c) * x ** 3 + (6 * b + 30 * c) * x ** 2 + (-12 * b - 48 * c) * x + (8 * b + 24 * c)) / 6
            return 0.0
        return k, 2.0
    if name == "catmullRom":
        a = -0.5

        def k(x):
            x = abs(x)
            if x < 1:
                return ((a + 2) * x - (a + 3)) * x * x + 1
            if x < 2:
                return (((x - 5) * x + 8) * x - 4) * a
            return 0.0
        return k, 2.0
    if name == "bilinear":
        return (lambda x: max(0.0, 1 - abs(x))), 1.0
    if name == "lanczos3":
        def sinc(x):
            return 1.0 if x == 0 else math.sin(math.pi * x) / (math.pi * x)
        return (lambda x: sinc(x) * sinc(x / 3) if abs(x) < 3 else 0.0), 3.0
    raise ValueError(name)


def matrix(src, dst, name):
    """dst x src weights of one axis."""
    m = np.zeros((dst, src))
    scale = src / dst
    for i in range(dst):
        if name == "box":
            start, end = i * scale, min(src, (i + 1) * scale)
            for j in range(int(start), min(src, int(math.ceil(end)))):
                m[i, j] = max(0.0, min(end, j + 1) - max(start, j))
        else:
            k, support = kernel(name)
            stretch = max(scale, 1.0)
            center = (i + 0.5) * scale
            lo = max(0, int(math.floor(center - support * stretch + 0.5)))
            hi = min(src, int(math.floor(center + support * stretch + 0.5)))
            for j in range(lo, hi):
                m[i, j] = k((j + 0.5 - center) / stretch)
        m[i] /= m[i].sum()
    return m


def numpy_resize(img, w, h, name):
    f = img.astype(np.float64)
    if img.shape[2] == 4:
        f[..., :3] *= f[..., 3:4] / 255
    out = np.einsum("yj,jxc->yxc", matrix(img.shape[0], h, name), f)
    out = np.einsum("xi,yic->yxc", matrix(img.shape[1], w, name), out)
    if img.shape[2] == 4:
        alpha = np.clip(out[..., 3:4], 0, 255)
        with np.errstate(divide="ignore", invalid="ignore"):
            out[..., :3] = np.where(alpha > 0, out[..., :3] * 255 / alpha, 0)
        out[..., 3:4] = alpha
    return np.clip(np.floor(out + 0.5), 0, 255).astype(np.uint8)


def pillow_resize(img, w, h, name):
    mode = {1: "L", 3: "RGB", 4: "RGBA"}[img.shape[2]]
    pil = Image.fromarray(img[..., 0] if img.shape[2] == 1 else img, mode)
    out = np.asarray(pil.resize((w, h), PILLOW[name]))
    return out.reshape(h, w, img.shape[2])


def pillow_emulated(img, w, h, name):
    """numpy_resize with Pillow's order (horizontal first) and its 8-bit rounding and clipping between
    the passes: must equal Pillow within 1 (its fixed-point weights) for gray and RGB."""
    f = img.astype(np.float64)
    t = np.einsum("xi,yic->yxc", matrix(img.shape[1], w, name), f)
    t = np.clip(np.floor(t + 0.5), 0, 255)
    t = np.einsum("yj,jxc->yxc", matrix(img.shape[0], h, name), t)
    return np.clip(np.floor(t + 0.5), 0, 255).astype(np.uint8)


def check_numpy_against_pillow():
    for channels in (1, 3):
        img = source(channels)
        for (w, h) in SIZES:
            for name in ("bilinear", "catmullRom", "lanczos3"):
                diff = np.abs(pillow_emulated(img, w, h, name).astype(int) - pillow_resize(img, w, h, name).astype(int)).max()
                assert diff <= 1, f"numpy {name} differs from Pillow by {diff} at {w}x{h}"


def main():
    check_numpy_against_pillow()
    lines = []
    for layout, channels in LAYOUTS.items():
        img = source(channels)
        for name in ("nearest", "bilinear", "mitchell", "catmullRom", "lanczos3", "box"):
            for (w, h) in SIZES:
                cases = []
                if name in PILLOW:
                    cases.append(("pillow", pillow_resize(img, w, h, name)))
                if name != "nearest":
                    cases.append(("float64", numpy_resize(img, w, h, name)))
                for reference, out in cases:
                    lines.append("\t".join([name, layout, str(SOURCE_W), str(SOURCE_H), str(w), str(h), reference,
                                            out.tobytes().hex()]))
    with open(OUT, "w") as f:
        f.write("# filter\tlayout\tsource_w\tsource_h\twidth\theight\treference\tbytes (hex, rows packed); made by scripts/reference/resample-reference.py\n")
        f.write("\n".join(lines) + "\n")
    print(f"wrote {len(lines)} cases to {os.path.normpath(OUT)}")


main()
