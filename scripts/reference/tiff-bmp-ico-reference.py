#!/usr/bin/env python3
"""Fixtures and reference pixels for the TIFF, BMP and ICO coders.

Writes small files into Tests/{TIFF,BMP,ICO}CoderTests/Fixtures, each with `<file>.reference.png`:
the pixels Pillow decodes from it as RGBA (turned upright by its orientation tag, with
ImageOps.exif_transpose), and `reference.tsv` in each folder:

    file, width, height, tolerance, compare, note

`compare` says how the Swift tests compare the coder's RGBA with the reference:
  rgba           every channel within `tolerance`
  rgb            colour channels only (the file's fourth byte is read as alpha by browsers and by our
                 coder, ignored by Pillow: see the note)
  premultiplied  colours premultiplied by alpha within `tolerance` (libtiff's RGBA reader premultiplies
                 unassociated alpha, so a straight colour under a small alpha is not recoverable exactly)
  error          the coder must refuse the file with a typed error (Pillow's behaviour is in the note)

Files are made by Pillow's encoders where Pillow writes the variant, by tiffcp (libtiff-tools) for tiled,
planar, big-endian and YCbCr-JPEG TIFFs, and by hand here (the byte layouts below) for BMP variants
Pillow does not write: RLE8, RLE4, 16-bit 5-5-5 and 5-6-5, 32-bit bit fields with alpha, top-down rows,
OS/2 headers, 4-bit palettes; and ICO entries with AND masks. Needs Pillow and NumPy; run it only when a
fixture changes:  python3 scripts/reference/tiff-bmp-ico-reference.py
"""
import io
import os
import struct
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))
import use_venv  # noqa: E402 (the scripts' one Python environment: scripts/python/requirements.txt)

use_venv.ensure()

import numpy as np  # noqa: E402
from PIL import Image, ImageCms, ImageOps

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "Tests")
W, H = 37, 23


def picture(w=W, h=H, phase=0):
    """Ramps across and down, blue by quadrant, alpha ramping left to right (SyntheticPicture's layout)."""
    a = np.zeros((h, w, 4), np.uint8)
    for y in range(h):
        for x in range(w):
            a[y, x] = [(x * 255 // (w - 1) + phase) & 255, (y * 255 // (h - 1) + 2 * phase) & 255,
                       ((x >= w // 2) + 2 * (y >= h // 2)) * 80, x * 255 // (w - 1)]
    return Image.fromarray(a, "RGBA")


class Folder:
    def __init__(self, name):
        self.path = os.path.join(ROOT, name, "Fixtures")
        os.makedirs(self.path, exist_ok=True)
        self.rows = []

    def add(self, file, data, tolerance=0, compare="rgba", note="", reference=None):
        with open(os.path.join(self.path, file), "wb") as f:
            f.write(data)
        if compare == "error":
            try:
                Image.open(io.BytesIO(data)).load()
                pillow = "Pillow decodes it"
            except Exception as e:  # noqa: BLE001 - the message goes into the note
                pillow = f"Pillow refuses it ({type(e).__name__})"
            self.rows.append((file, 0, 0, 0, "error", f"{note}; {pillow}"))
            return
        if reference is None:
            image = Image.open(io.BytesIO(data))
            image = ImageOps.exif_transpose(image)
            reference = image.convert("RGBA")
        reference.save(os.path.join(self.path, file + ".reference.png"))
        self.rows.append((file, reference.width, reference.height, tolerance, compare, note))

    def write(self):
        with open(os.path.join(self.path, "reference.tsv"), "w") as f:
            f.write("file\twidth\theight\ttolerance\tcompare\tnote\n")
            for row in self.rows:
                f.write("\t".join(str(v) for v in row) + "\n")


def saved(image, fmt, **kw):
    b = io.BytesIO()
    image.save(b, fmt, **kw)
    return b.getvalue()


def tiffcp(data, *args):
    with tempfile.TemporaryDirectory() as d:
        src, dst = os.path.join(d, "in.tif"), os.path.join(d, "out.tif")
        with open(src, "wb") as f:
            f.write(data)
        subprocess.run(["tiffcp", *args, src, dst], check=True)
        with open(dst, "rb") as f:
            return f.read()


def tiff_fixtures():
    t = Folder("TIFFCoderTests")
    p = picture()
    rgb = p.convert("RGB")
    srgb = ImageCms.ImageCmsProfile(ImageCms.createProfile("sRGB")).tobytes()
    t.add("rgb-none.tif", saved(rgb, "TIFF"), note="RGB, uncompressed")
    t.add("rgb-lzw.tif", saved(rgb, "TIFF", compression="tiff_lzw"), note="RGB, LZW")
    t.add("rgb-deflate-icc.tif", saved(rgb, "TIFF", compression="tiff_adobe_deflate", icc_profile=srgb),
          note="RGB, Deflate, an sRGB ICC profile")
    t.add("rgb-packbits.tif", saved(rgb, "TIFF", compression="packbits"), note="RGB, PackBits")
    t.add("rgb-jpeg.tif", saved(rgb, "TIFF", compression="jpeg", quality=90), tolerance=2,
          note="RGB, JPEG (photometric RGB); IDCT rounding may differ from Pillow's libjpeg by a level")
    t.add("ycbcr-jpeg.tif", tiffcp(saved(rgb, "TIFF"), "-c", "jpeg:90"), tolerance=12,
          note="YCbCr 2x2 subsampled, JPEG (tiffcp); libtiff upsamples chroma by replication, Pillow (libjpeg) smoothly")
    t.add("rgba-lzw.tif", saved(p, "TIFF", compression="tiff_lzw"), tolerance=1, compare="premultiplied",
          note="RGBA, unassociated alpha")
    t.add("gray-deflate.tif", saved(p.convert("L"), "TIFF", compression="tiff_adobe_deflate"), note="8-bit gray")
    t.add("gray-alpha.tif", saved(p.convert("LA"), "TIFF", compression="tiff_lzw"), tolerance=1,
          compare="premultiplied", note="gray + unassociated alpha")
    t.add("bilevel-g4.tif", saved(p.convert("1"), "TIFF", compression="group4"), note="1-bit, CCITT G4")
    t.add("palette-lzw.tif", saved(p.convert("RGB").convert("P", palette=Image.ADAPTIVE, colors=16), "TIFF",
                                    compression="tiff_lzw"), note="4/8-bit palette")
    t.add("cmyk-lzw.tif", saved(rgb.convert("CMYK"), "TIFF", compression="tiff_lzw"), note="CMYK (inks), 8-bit")
    gray16 = np.array(p.convert("L"), np.uint16) * 257
    t.add("gray16.tif", saved(Image.fromarray(gray16.astype("<u2")), "TIFF"),
          reference=Image.fromarray((gray16 >> 8).astype(np.uint8), "L").convert("RGBA"),
          note="16-bit gray; reference = high byte (Pillow's own convert clips instead of scaling)")
    t.add("tiled-16.tif", tiffcp(saved(rgb, "TIFF"), "-t", "-w", "16", "-l", "16", "-c", "lzw"),
          note="16x16 tiles, LZW (tiffcp); the edges are partial tiles")
    t.add("planar.tif", tiffcp(saved(rgb, "TIFF"), "-p", "separate"), note="planar configuration 2 (tiffcp)")
    t.add("big-endian.tif", tiffcp(saved(rgb, "TIFF", compression="tiff_lzw"), "-B"), note="MM byte order (tiffcp)")
    t.add("strips-1row.tif", tiffcp(saved(rgb, "TIFF"), "-r", "1", "-c", "zip"), note="one row per strip, Deflate")
    for o in (3, 6, 8):
        t.add(f"orientation-{o}.tif", saved(rgb, "TIFF", tiffinfo={274: o}),
              note=f"orientation tag {o}; reference turned upright by Pillow's exif_transpose")
    second = picture(20, 30, phase=40).convert("RGB")
    t.add("multipage.tif", saved(rgb, "TIFF", save_all=True, append_images=[second]),
          note="two pages: the first is decoded, as imgproxy does")
    t.add("float32.tif", saved(Image.fromarray(np.array(p.convert("L"), np.float32), "F"), "TIFF"),
          compare="error", note="32-bit float samples: refused with unsupportedFormat")
    t.write()




def bmp(header_size, width, height, bits, compression, pixels, table=b"", colors_used=0, extra=b""):
    """A BMP file: file header, a Windows DIB header of `header_size` bytes (40, 108 or 124; `extra`
    fills the bytes after the first 40), the colour table or masks, then `pixels`."""
    if header_size == 12:
        dib = struct.pack("<IHHHH", 12, width, height & 0xFFFF, 1, bits)
    else:
        dib = struct.pack("<IiiHHIIiiII", header_size, width, height, 1, bits, compression, len(pixels),
                          2835, 2835, colors_used, 0)
        dib += extra.ljust(header_size - 40, b"\0")
    offset = 14 + len(dib) + len(table)
    return b"BM" + struct.pack("<IHHI", offset + len(pixels), 0, 0, offset) + dib + table + pixels


def rows(array, bytes_per_row_fn, top_down=False):
    out = b""
    order = range(array.shape[0]) if top_down else range(array.shape[0] - 1, -1, -1)
    for y in order:
        row = bytes_per_row_fn(array[y])
        out += row + b"\0" * ((-len(row)) % 4)
    return out


def palette_image(colors=16):
    p = picture().convert("RGB").quantize(colors)
    pal = p.getpalette()[: colors * 3]
    return np.array(p), pal


def bmp_fixtures():
    b = Folder("BMPCoderTests")
    p = picture()
    rgb = p.convert("RGB")
    a = np.array(p)
    b.add("rgb24.bmp", saved(rgb, "BMP"), note="24-bit, Pillow")
    b.add("gray8.bmp", saved(p.convert("L"), "BMP"), note="8-bit gray palette, Pillow")
    b.add("palette8.bmp", saved(rgb.quantize(200), "BMP"), note="8-bit palette, Pillow")
    b.add("bilevel1.bmp", saved(p.convert("1"), "BMP"), note="1-bit, Pillow")
    b.add("bgra32-bi-rgb.bmp", saved(p, "BMP"), compare="rgb",
          note="32-bit BI_RGB with alpha bytes (Pillow writes RGBA so): Pillow ignores the fourth byte, "
               "browsers and our coder read it as alpha")
    # 32-bit BI_BITFIELDS, V4 header, alpha mask.
    masks = struct.pack("<IIII", 0xFF0000, 0xFF00, 0xFF, 0xFF000000) + b"BGRs"
    bgra = rows(a, lambda r: r[:, [2, 1, 0, 3]].tobytes())
    b.add("bitfields32-alpha-v4.bmp", bmp(108, W, H, 32, 3, bgra, extra=masks), note="32-bit BI_BITFIELDS, V4 alpha mask")
    b.add("bitfields32-alpha-v5-topdown.bmp", bmp(124, W, -H, 32, 3, rows(a, lambda r: r[:, [2, 1, 0, 3]].tobytes(), True),
                                                  extra=masks), note="32-bit BI_BITFIELDS, V5 header, top-down rows")
    # 16-bit 5-5-5 (BI_RGB) and 5-6-5 (BI_BITFIELDS after a 40-byte header).
    def pack555(r):
        v = ((r[:, 0].astype(np.uint16) >> 3) << 10) | ((r[:, 1].astype(np.uint16) >> 3) << 5) | (r[:, 2].astype(np.uint16) >> 3)
        return v.astype("<u2").tobytes()

    def pack565(r):
        v = ((r[:, 0].astype(np.uint16) >> 3) << 11) | ((r[:, 1].astype(np.uint16) >> 2) << 5) | (r[:, 2].astype(np.uint16) >> 3)
        return v.astype("<u2").tobytes()
    scaling = "; 5 and 6-bit channels scale to the nearest level (Chromium), Pillow truncates (one level lower)"
    b.add("rgb555.bmp", bmp(40, W, H, 16, 0, rows(a, pack555)), tolerance=1, note="16-bit 5-5-5 (BI_RGB)" + scaling)
    b.add("rgb565.bmp", bmp(40, W, H, 16, 3, rows(a, pack565), table=struct.pack("<III", 0xF800, 0x7E0, 0x1F)),
          tolerance=1, note="16-bit 5-6-5 (BI_BITFIELDS after a 40-byte header)" + scaling)
    # 4-bit palette, OS/2 1.x 24-bit.
    idx, pal = palette_image(16)
    table = b"".join(bytes([pal[i * 3 + 2], pal[i * 3 + 1], pal[i * 3], 0]) for i in range(16))
    b.add("palette4.bmp", bmp(40, W, H, 4, 0, rows(idx, lambda r: bytes((int(r[i]) << 4) | (int(r[i + 1]) if i + 1 < len(r) else 0)
                                                                        for i in range(0, len(r), 2))),
                              table=table, colors_used=16), note="4-bit palette")
    b.add("os2-24.bmp", bmp(12, W, H, 24, 0, rows(a, lambda r: r[:, [2, 1, 0]].tobytes())), note="OS/2 1.x header, 24-bit")
    # RLE8 and RLE4: runs for each row, end of line, end of bitmap.
    def rle8_row(r):
        out, i = b"", 0
        while i < len(r):
            j = i
            while j < len(r) and r[j] == r[i] and j - i < 255:
                j += 1
            out += bytes([j - i, int(r[i])])
            i = j
        return out

    rle8 = b""
    for y in range(H - 1, -1, -1):
        rle8 += rle8_row(idx[y]) + b"\0\0"
    rle8 += b"\0\1"
    b.add("rle8.bmp", bmp(40, W, H, 8, 1, rle8, table=table, colors_used=16), note="RLE8")

    def rle4_row(r):
        out, i = b"", 0
        while i < len(r):
            j = i
            while j < len(r) and r[j] == r[i] and j - i < 255:
                j += 1
            out += bytes([j - i, (int(r[i]) << 4) | int(r[i])])
            i = j
        return out
    rle4 = b"".join(rle4_row(idx[y]) + b"\0\0" for y in range(H - 1, -1, -1)) + b"\0\1"
    b.add("rle4.bmp", bmp(40, W, H, 4, 2, rle4, table=table, colors_used=16), note="RLE4")
    b.add("png-inside.bmp", bmp(40, W, H, 0, 5, saved(rgb, "PNG")), compare="error",
          note="BI_PNG: refused with unsupportedFormat")
    b.write()


def ico_fixtures():
    i = Folder("ICOCoderTests")
    p = picture(48, 48)
    i.add("png-entries.ico", saved(p, "ICO", sizes=[(16, 16), (32, 32), (48, 48)]),
          note="three PNG entries, the largest decoded")
    i.add("bmp-entries.ico", saved(p, "ICO", sizes=[(16, 16), (48, 48), (32, 32)], bitmap_format="bmp"),
          note="three 32-bit BMP entries (alpha, AND mask)")
    # An 8-bit palette entry with an AND mask: pixels whose source alpha is under 128 are masked.
    small = picture(32, 32).convert("RGB")
    q = small.quantize(64)
    idx, pal = np.array(q), q.getpalette()[: 64 * 3]
    alpha = np.array(picture(32, 32))[:, :, 3]
    table = b"".join(bytes([pal[k * 3 + 2], pal[k * 3 + 1], pal[k * 3], 0]) for k in range(64))
    xor = rows(idx, lambda r: r.astype(np.uint8).tobytes())
    mask = rows(alpha < 128, lambda r: np.packbits(r).tobytes())
    dib = struct.pack("<IiiHHIIiiII", 40, 32, 64, 1, 8, 0, 0, 0, 0, 64, 0) + table + xor + mask
    entry = struct.pack("<BBBBHHII", 32, 32, 0, 0, 1, 8, len(dib), 22)
    data = struct.pack("<HHH", 0, 1, 1) + entry + dib
    ref = np.array(q.convert("RGBA"))
    ref[alpha < 128] = 0
    i.add("palette8-and-mask.ico", data, reference=Image.fromarray(ref, "RGBA"),
          note="8-bit palette BMP entry with an AND mask; reference: the palette colours, masked pixels transparent black")
    i.write()


if __name__ == "__main__":
    tiff_fixtures()
    bmp_fixtures()
    ico_fixtures()
    print("fixtures written under", os.path.normpath(ROOT))
