#!/usr/bin/env python3
"""Reference pixels for the geometry transformers, written to Tests/TransformersTests/geometry-reference.tsv.

Each line is tab-separated: kind, parameters, width, height, hex bytes.

* `pattern`: the test pattern itself (RGB, 23 x 17), so the Swift test can check it builds the same input.
* `rotate`: Pillow's `rotate(-degrees, resample=BILINEAR, expand=True, fillcolor=FILL)` of the pattern
  (RotateTransformer turns clockwise, Pillow counter-clockwise), followed by a class string per pixel:
  `i` when the pixel centre maps at least half a pixel inside the source (all four bilinear neighbours
  are source pixels: values must agree within 1), `o` when it maps more than half a pixel outside
  (the fill colour on both sides, exactly), `e` for the one-pixel band along the source's edge where
  Pillow's sampling is aliased (clamped neighbours) and ours is antialiased against the fill: not compared.
* `rounded` / `circle`: the alpha a rounded rectangle (or the inscribed circle) covers in each pixel,
  drawn by Pillow's ImageDraw 8 times larger and box-averaged down: a supersampled coverage reference.

Run: python3 scripts/reference/geometry-reference.py   (Pillow from scripts/python/venv)
"""
import math
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))
import use_venv  # noqa: E402 (the scripts' one Python environment: scripts/python/requirements.txt)

use_venv.ensure()

from PIL import Image, ImageDraw  # noqa: E402

#: Size of the rotation test pattern: odd sides, so no symmetry hides an off-by-one.
PATTERN_SIZE = (23, 17)
#: The colour rotation uncovers.
FILL = (10, 200, 30)
#: Clockwise angles; 90-degree multiples are tested for exactness in Swift without a reference.
ANGLES = [30, 45, 117.5, -12, 200]
#: Supersampling factor of the coverage references.
SUPERSAMPLE = 8
#: (width, height, radius) of the rounded-rectangle references; the last radius is clamped to half the height.
ROUNDED = [(40, 30, 10), (31, 25, 6.5), (50, 20, 100)]
#: Sides of the circle references.
CIRCLES = [33, 20]

OUT = os.path.join(os.path.dirname(__file__), "..", "..", "Tests", "TransformersTests", "geometry-reference.tsv")


def pattern():
    """The deterministic RGB pattern GeometryReferenceTests.swift builds with the same formula."""
    w, h = PATTERN_SIZE
    img = Image.new("RGB", (w, h))
    img.putdata([((x * 37 + y * 11) % 256, (x * 5 + y * 29 + 80) % 256, (x * y * 3 + 7) % 256)
                 for y in range(h) for x in range(w)])
    return img


def pillow_rotation_matrix(degrees_ccw, w, h):
    """Output-to-input affine matrix and output size, as Image.rotate(expand=True) computes them."""
    angle = -math.radians(degrees_ccw)
    m = [round(math.cos(angle), 15), round(math.sin(angle), 15), 0.0,
         round(-math.sin(angle), 15), round(math.cos(angle), 15), 0.0]

    def t(x, y):
        return m[0] * x + m[1] * y + m[2], m[3] * x + m[4] * y + m[5]
    m[2], m[5] = t(-w / 2.0, -h / 2.0)
    m[2] += w / 2.0
    m[5] += h / 2.0
    xs, ys = zip(*[t(x, y) for x, y in ((0, 0), (w, 0), (w, h), (0, h))])
    nw = math.ceil(max(xs)) - math.floor(min(xs))
    nh = math.ceil(max(ys)) - math.floor(min(ys))
    m[2], m[5] = t(-(nw - w) / 2.0, -(nh - h) / 2.0)
    return m, nw, nh


def classes(m, nw, nh, w, h):
    out = []
    for y in range(nh):
        for x in range(nw):
            sx = m[0] * (x + 0.5) + m[1] * (y + 0.5) + m[2]
            sy = m[3] * (x + 0.5) + m[4] * (y + 0.5) + m[5]
            if 0.5 <= sx <= w - 0.5 and 0.5 <= sy <= h - 0.5:
                out.append("i")
            elif sx < -0.5 or sy < -0.5 or sx > w + 0.5 or sy > h + 0.5:
                out.append("o")
            else:
                out.append("e")
    return "".join(out)


def coverage(width, height, draw):
    big = Image.new("L", (width * SUPERSAMPLE, height * SUPERSAMPLE), 0)
    draw(ImageDraw.Draw(big), width * SUPERSAMPLE, height * SUPERSAMPLE)
    return big.resize((width, height), Image.BOX)


def main():
    lines = []
    src = pattern()
    w, h = src.size
    lines.append(["pattern", "", str(w), str(h), src.tobytes().hex()])
    for degrees in ANGLES:
        out = src.rotate(-degrees, resample=Image.BILINEAR, expand=True, fillcolor=FILL)
        m, nw, nh = pillow_rotation_matrix(-degrees, w, h)
        assert out.size == (nw, nh)
        lines.append(["rotate", repr(float(degrees)), str(nw), str(nh), out.tobytes().hex(), classes(m, nw, nh, w, h)])
    for width, height, radius in ROUNDED:
        r = min(radius, width / 2, height / 2) * SUPERSAMPLE
        mask = coverage(width, height, lambda d, bw, bh: d.rounded_rectangle((0, 0, bw - 1, bh - 1), radius=r, fill=255))
        lines.append(["rounded", repr(float(radius)), str(width), str(height), mask.tobytes().hex()])
    for side in CIRCLES:
        mask = coverage(side, side, lambda d, bw, bh: d.ellipse((0, 0, bw - 1, bh - 1), fill=255))
        lines.append(["circle", "", str(side), str(side), mask.tobytes().hex()])
    with open(OUT, "w") as f:
        f.write("# geometry references from scripts/reference/geometry-reference.py (Pillow %s)\n" % Image.__version__)
        for line in lines:
            f.write("\t".join(line) + "\n")
    print("wrote", os.path.normpath(OUT), len(lines), "lines")


if __name__ == "__main__":
    main()
