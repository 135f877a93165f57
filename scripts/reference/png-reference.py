#!/usr/bin/env python3
"""Reference pixels for the PNG conformance corpus, written to Tests/PNGCoderTests/png-reference.tsv.

For every PNG in ../shared/corpus/conformance/png (or the folder given as the first argument) this
decodes the image (the default image, for APNGs) with Pillow and writes one line:

    file, width, height, fnv1a64 of the RGBA8 bytes, mode, note

`WebImagePNGCoderTests` decodes each file with PNGCoder, expands the result to RGBA8 and compares the
hash and size with these lines.

How the RGBA8 bytes are made from Pillow's image
-----------------------------------------------
* Samples are the stored values: gAMA, cHRM, sRGB, iCCP and sBIT are ignored, as Pillow and PNGCoder
  both do (a PNG decoder that colour-manages is a different product).
* 16-bit samples keep their high byte (Pillow's RGB;16B / RGBA;16B unpackers do this; libpng's
  png_set_strip_16 does the same).
* 16-bit gray (Pillow mode "I;16"/"I") is reduced here with the same rule, value >> 8, because
  Pillow's own I -> L conversion clips to 255 instead.
* tRNS: palette entries get their alpha; a gray or RGB tRNS makes the matching pixels transparent.
  A gray key below 8 bits is scaled to 8 bits before the comparison (Pillow compares the expanded
  samples with the unscaled key, so in pngsuite-tbbn0g04.png nothing would be transparent).
  For 16-bit gray the comparison is on the 16-bit value, which Pillow keeps in mode "I;16". For
  16-bit RGB Pillow keeps only the high bytes, so a 16-bit colour key cannot be checked exactly:
  such files are listed with "skip" in the hash column and the reason in the note.
* Gray becomes R = G = B = gray, A = 255; RGB gets A = 255.

The hash is FNV-1a 64 over the RGBA8 bytes, rows top to bottom, no padding.
Run: python3 scripts/reference/png-reference.py [corpus-png-folder]   (Pillow and NumPy from scripts/python/venv)
"""
import os
import struct
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))
import use_venv  # noqa: E402 (the scripts' one Python environment: scripts/python/requirements.txt)

use_venv.ensure()

import numpy as np  # noqa: E402
from pixelhash import fnv1a64, fnv1a64_many  # noqa: F401 (shared with the other reference scripts)
from PIL import Image


def chunks(data: bytes):
    """(type, payload) of each chunk; stops quietly at the end or at a malformed length."""
    p = 8
    while p + 8 <= len(data):
        length, kind = struct.unpack(">I4s", data[p:p + 8])
        yield kind.decode("latin-1"), data[p + 8:p + 8 + length]
        p += 12 + length


def header(data: bytes):
    """Bit depth, colour type and tRNS payload (or None) from the file's own chunks."""
    depth = color = None
    trns = None
    for kind, payload in chunks(data):
        if kind == "IHDR":
            depth, color = payload[8], payload[9]
        elif kind == "tRNS":
            trns = payload
        elif kind == "IDAT":
            break
    return depth, color, trns


def rgba(path: str):
    """The reference RGBA8 array, Pillow's mode, and a note ('' or why the file is skipped)."""
    data = open(path, "rb").read()
    depth, color, trns = header(data)
    image = Image.open(path)
    image.load()
    mode = image.mode
    if color == 0 and depth == 16:  # 16-bit gray: Pillow keeps the 16-bit values
        values = np.asarray(image, dtype=np.uint32)
        gray = (values >> 8).astype(np.uint8)
        alpha = np.full(gray.shape, 255, dtype=np.uint8)
        if trns is not None and len(trns) >= 2:
            alpha[values == struct.unpack(">H", trns[:2])[0]] = 0
        return np.dstack([gray, gray, gray, alpha]), mode, ""
    if color == 0 and trns is not None and len(trns) >= 2:
        # Pillow compares the expanded 8-bit samples with the unscaled key (15 for white at 4 bits),
        # so low-bit-depth keys never match there; the key is scaled to 8 bits here, as libpng does.
        gray = np.asarray(image.convert("L"), dtype=np.uint8)
        key = struct.unpack(">H", trns[:2])[0] * (255 // ((1 << depth) - 1))
        alpha = np.where(gray == key, 0, 255).astype(np.uint8)
        return np.dstack([gray, gray, gray, alpha]), mode, "gray tRNS key scaled to 8 bits here (Pillow does not scale it)"
    if color == 2 and depth == 16 and trns is not None:
        return None, mode, "16-bit RGB with a tRNS colour key: Pillow keeps only the high bytes"
    return np.asarray(image.convert("RGBA"), dtype=np.uint8), mode, ""


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    folder = sys.argv[1] if len(sys.argv) > 1 else os.path.join(here, "..", "..", "..", "shared", "corpus", "conformance", "png")
    out = os.path.join(here, "..", "..", "Tests", "PNGCoderTests", "png-reference.tsv")
    lines = ["file\twidth\theight\tfnv1a64\tmode\tnote"]
    for name in sorted(os.listdir(folder)):
        path = os.path.join(folder, name)
        if open(path, "rb").read(8) != b"\x89PNG\r\n\x1a\n":
            continue
        try:
            pixels, mode, note = rgba(path)
        except Exception as error:  # Pillow refuses a few files libpng accepts (see the corpus README)
            lines.append(f"{name}\t\t\tskip\t\tPillow cannot decode it ({type(error).__name__}); libpng drops its bad iCCP chunk")
            continue
        if pixels is None:
            lines.append(f"{name}\t\t\tskip\t{mode}\t{note}")
            continue
        height, width = pixels.shape[:2]
        lines.append(f"{name}\t{width}\t{height}\t{fnv1a64(pixels.reshape(-1)):016x}\t{mode}\t{note}")
    with open(out, "w") as f:
        f.write("\n".join(lines) + "\n")
    print(f"{len(lines) - 1} files -> {out}")


if __name__ == "__main__":
    main()
