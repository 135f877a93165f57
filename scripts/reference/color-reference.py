#!/usr/bin/env python3
"""Test profiles, a CMYK JPEG and reference sRGB pixels for Tests/ColorManagementTests.

Writes into Tests/ColorManagementTests/:

* Profiles/display-p3.icc, adobe-rgb.icc, gray-gamma18.icc, cmyk-test.icc: made here with the system's
  Little CMS (liblcms2.so.2 through ctypes), so they are small and their contents are known:
  - Display P3: DCI-P3 primaries, D65 white, sRGB's tone curve (Apple's Display P3).
  - Adobe RGB (1998): its primaries, D65 white, gamma 563/256.
  - Gray with gamma 1.8 and D65 white.
  - A CMYK output profile whose AToB0 table (a 9-point CLUT to Lab) maps ink to colour by a formula that
    is NOT the naive one: sRGB' = (1 - ink_c)^1.5 * (1 - ink_k), and so on, so a decoder that ignores
    the profile gets visibly different pixels.
* cmyk-tiles.jpg: an 8-tile CMYK JPEG (each tile 16x16 of one colour, quality 100, no subsampling) with
  cmyk-test.icc embedded, written by Pillow (inverted CMYK with Adobe's APP14 marker, as Photoshop does).
* color-reference.tsv: one line per sample,

      profile, kind, x, y, input samples (comma-separated), expected sRGB (comma-separated)

  For rgb/gray: the input is the pixel the test tags with the profile; the expected value is Pillow's
  ImageCms (its own bundled Little CMS, perceptual intent, no black point compensation) converting it to
  Pillow's built-in sRGB profile (gray: to a gray profile with sRGB's curve). For cmyk: the input is the
  sample Pillow decodes at the tile centre (x, y) of cmyk-tiles.jpg, as ink values; the expected value is
  ImageCms's conversion of it with cmyk-test.icc.

The Swift tests compare within 2 levels per channel: two builds of Little CMS (Pillow's bundled one and
Debian's 2.14) round 16-bit intermediate values differently by at most one level, and sRGB profiles made
by Pillow and by lcms's cmsCreate_sRGBProfile differ in their stored curves by less than another.

Run: python3 scripts/reference/color-reference.py   (Pillow from scripts/python/venv)
"""
import ctypes
import io
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "..", "..", "Tests", "ColorManagementTests")
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))
import use_venv  # noqa: E402 (the scripts' one Python environment: scripts/python/requirements.txt)

use_venv.ensure()

from PIL import Image, ImageCms  # noqa: E402

lcms = ctypes.CDLL("liblcms2.so.2")


class XYY(ctypes.Structure):
    _fields_ = [("x", ctypes.c_double), ("y", ctypes.c_double), ("Y", ctypes.c_double)]


class XYYTriple(ctypes.Structure):
    _fields_ = [("red", XYY), ("green", XYY), ("blue", XYY)]


vp = ctypes.c_void_p
lcms.cmsBuildParametricToneCurve.restype = vp
lcms.cmsBuildParametricToneCurve.argtypes = [vp, ctypes.c_int, ctypes.POINTER(ctypes.c_double)]
lcms.cmsCreateRGBProfile.restype = vp
lcms.cmsCreateRGBProfile.argtypes = [ctypes.POINTER(XYY), ctypes.POINTER(XYYTriple), ctypes.POINTER(vp)]
lcms.cmsCreateGrayProfile.restype = vp
lcms.cmsCreateGrayProfile.argtypes = [ctypes.POINTER(XYY), vp]
lcms.cmsSaveProfileToFile.argtypes = [vp, ctypes.c_char_p]
lcms.cmsCloseProfile.argtypes = [vp]
lcms.cmsWhitePointFromTemp.argtypes = [ctypes.POINTER(XYY), ctypes.c_double]
lcms.cmsCreateProfilePlaceholder.restype = vp
lcms.cmsCreateProfilePlaceholder.argtypes = [vp]
lcms.cmsSetProfileVersion.argtypes = [vp, ctypes.c_double]
lcms.cmsSetDeviceClass.argtypes = [vp, ctypes.c_uint32]
lcms.cmsSetColorSpace.argtypes = [vp, ctypes.c_uint32]
lcms.cmsSetPCS.argtypes = [vp, ctypes.c_uint32]
lcms.cmsPipelineAlloc.restype = vp
lcms.cmsPipelineAlloc.argtypes = [vp, ctypes.c_uint32, ctypes.c_uint32]
lcms.cmsStageAllocCLut16bit.restype = vp
lcms.cmsStageAllocCLut16bit.argtypes = [vp, ctypes.c_uint32, ctypes.c_uint32, ctypes.c_uint32, vp]
SAMPLER = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.POINTER(ctypes.c_uint16), ctypes.POINTER(ctypes.c_uint16), vp)
lcms.cmsStageSampleCLut16bit.argtypes = [vp, SAMPLER, vp, ctypes.c_uint32]
lcms.cmsPipelineInsertStage.argtypes = [vp, ctypes.c_int, vp]
lcms.cmsWriteTag.argtypes = [vp, ctypes.c_uint32, vp]
lcms.cmsD50_XYZ.restype = vp
lcms.cmsPipelineFree.argtypes = [vp]
lcms.cmsCreate_sRGBProfile.restype = vp
lcms.cmsCreateLab4Profile.restype = vp
lcms.cmsCreateLab4Profile.argtypes = [vp]
lcms.cmsCreateTransform.restype = vp
lcms.cmsCreateTransform.argtypes = [vp, ctypes.c_uint32, vp, ctypes.c_uint32, ctypes.c_uint32, ctypes.c_uint32]
lcms.cmsDoTransform.argtypes = [vp, vp, vp, ctypes.c_uint32]

#: IEC 61966-2-1's curve as lcms parametric type 4: (g, a, b, c, d).
SRGB_CURVE = (2.4, 1 / 1.055, 0.055 / 1.055, 1 / 12.92, 0.04045)
#: Adobe RGB (1998)'s gamma.
ADOBE_GAMMA = 563 / 256
GRAY_GAMMA = 1.8
D65_KELVIN = 6504
#: Grid points per CMYK channel of the test profile's CLUT: 9^4 * 3 * 2 bytes, about 40 KB.
CMYK_GRID = 9
#: How strongly the test CMYK profile's ink curve differs from the naive formula.
INK_EXPONENT = 1.5

SIG_OUTPUT_CLASS = 0x70727472  # 'prtr'
SIG_CMYK = 0x434D594B
SIG_LAB = 0x4C616220
SIG_ATOB0 = 0x41324230  # 'A2B0'
SIG_MEDIA_WHITE = 0x77747074  # 'wtpt'
TYPE_RGB_DBL = (4 << 16) | (3 << 3) | 0 | (1 << 22)  # COLORSPACE_SH(PT_RGB)|CHANNELS_SH(3)|BYTES_SH(0)|FLOAT_SH(1)
TYPE_LAB_16 = (10 << 16) | (3 << 3) | 2  # COLORSPACE_SH(PT_Lab)|CHANNELS_SH(3)|BYTES_SH(2)


def curve(kind, params):
    array = (ctypes.c_double * len(params))(*params)
    return lcms.cmsBuildParametricToneCurve(None, kind, array)


def d65():
    white = XYY()
    lcms.cmsWhitePointFromTemp(ctypes.byref(white), D65_KELVIN)
    return white


def save(profile, name):
    path = os.path.join(OUT, "Profiles", name)
    assert lcms.cmsSaveProfileToFile(profile, path.encode())
    lcms.cmsCloseProfile(profile)
    return path


def rgb_profile(primaries, tone):
    triple = XYYTriple(*(XYY(x, y, 1.0) for x, y in primaries))
    curves = (vp * 3)(tone, tone, tone)
    white = d65()
    return lcms.cmsCreateRGBProfile(ctypes.byref(white), ctypes.byref(triple), curves)


def cmyk_profile():
    """An output-class CMYK profile whose AToB0 is a CLUT to Lab of `INK_EXPONENT`'s formula."""
    srgb = lcms.cmsCreate_sRGBProfile()
    lab = lcms.cmsCreateLab4Profile(None)
    to_lab = lcms.cmsCreateTransform(srgb, TYPE_RGB_DBL, lab, TYPE_LAB_16, 1, 0)  # relative colorimetric

    def sampler(inputs, outputs, _cargo):
        c, m, y, k = (inputs[i] / 65535 for i in range(4))
        rgb = (ctypes.c_double * 3)(*(((1 - ink) ** INK_EXPONENT) * (1 - k) for ink in (c, m, y)))
        lab16 = (ctypes.c_uint16 * 3)()
        lcms.cmsDoTransform(to_lab, rgb, lab16, 1)
        for i in range(3):
            outputs[i] = lab16[i]
        return 1

    callback = SAMPLER(sampler)
    profile = lcms.cmsCreateProfilePlaceholder(None)
    lcms.cmsSetProfileVersion(profile, 2.1)  # lut16Type: a CLUT alone is a valid AToB0
    lcms.cmsSetDeviceClass(profile, SIG_OUTPUT_CLASS)
    lcms.cmsSetColorSpace(profile, SIG_CMYK)
    lcms.cmsSetPCS(profile, SIG_LAB)
    pipeline = lcms.cmsPipelineAlloc(None, 4, 3)
    clut = lcms.cmsStageAllocCLut16bit(None, CMYK_GRID, 4, 3, None)
    assert lcms.cmsStageSampleCLut16bit(clut, callback, None, 0)
    lcms.cmsPipelineInsertStage(pipeline, 0, clut)
    assert lcms.cmsWriteTag(profile, SIG_ATOB0, pipeline)
    assert lcms.cmsWriteTag(profile, SIG_MEDIA_WHITE, lcms.cmsD50_XYZ())
    lcms.cmsPipelineFree(pipeline)
    return profile


#: Colours tagged with each RGB profile: primaries, saturated and muted mixes, grays.
RGB_SAMPLES = [
    (255, 0, 0), (0, 255, 0), (0, 0, 255), (255, 255, 255), (0, 0, 0), (128, 128, 128),
    (200, 60, 60), (180, 80, 60), (30, 200, 120), (250, 240, 10), (60, 90, 200), (240, 150, 180),
    (12, 34, 56), (220, 220, 200),
]
GRAY_SAMPLES = [0, 1, 16, 64, 100, 128, 180, 230, 255]
#: Ink percentages (C, M, Y, K) of the CMYK tiles.
CMYK_TILES = [
    (0, 0, 0, 0), (100, 0, 0, 0), (0, 100, 0, 0), (0, 0, 100, 0),
    (0, 0, 0, 100), (50, 20, 10, 0), (20, 60, 80, 10), (30, 30, 30, 50),
]
TILE = 16


def main():
    os.makedirs(os.path.join(OUT, "Profiles"), exist_ok=True)
    paths = {
        "display-p3.icc": save(rgb_profile([(0.680, 0.320), (0.265, 0.690), (0.150, 0.060)], curve(4, SRGB_CURVE)), "display-p3.icc"),
        "adobe-rgb.icc": save(rgb_profile([(0.64, 0.33), (0.21, 0.71), (0.15, 0.06)], curve(1, (ADOBE_GAMMA,))), "adobe-rgb.icc"),
        "gray-gamma18.icc": save(lcms.cmsCreateGrayProfile(ctypes.byref(d65()), curve(1, (GRAY_GAMMA,))), "gray-gamma18.icc"),
        "cmyk-test.icc": save(cmyk_profile(), "cmyk-test.icc"),
    }
    srgb = ImageCms.createProfile("sRGB")
    lines = []
    for name in ("display-p3.icc", "adobe-rgb.icc"):
        source = ImageCms.getOpenProfile(paths[name])
        image = Image.new("RGB", (len(RGB_SAMPLES), 1))
        image.putdata(RGB_SAMPLES)
        out = ImageCms.profileToProfile(image, source, srgb, renderingIntent=0, outputMode="RGB")
        for x, sample in enumerate(RGB_SAMPLES):
            lines.append((name, "rgb", x, 0, sample, out.getpixel((x, 0))))

    # Gray: Pillow has no gray sRGB profile; convert to sRGB RGB, whose channels agree for neutral gray.
    source = ImageCms.getOpenProfile(paths["gray-gamma18.icc"])
    image = Image.new("L", (len(GRAY_SAMPLES), 1))
    image.putdata(GRAY_SAMPLES)
    out = ImageCms.profileToProfile(image, source, srgb, renderingIntent=0, outputMode="RGB")
    for x, sample in enumerate(GRAY_SAMPLES):
        lines.append(("gray-gamma18.icc", "gray", x, 0, (sample,), (out.getpixel((x, 0))[1],)))

    # CMYK tiles, written inverted with Adobe's marker by Pillow, then read back.
    tiles = Image.new("CMYK", (TILE * len(CMYK_TILES), TILE))
    for i, inks in enumerate(CMYK_TILES):
        tiles.paste(tuple(round(v * 255 / 100) for v in inks), (i * TILE, 0, (i + 1) * TILE, TILE))
    icc = open(paths["cmyk-test.icc"], "rb").read()
    jpeg_path = os.path.join(OUT, "cmyk-tiles.jpg")
    tiles.save(jpeg_path, quality=100, subsampling=0, icc_profile=icc)
    decoded = Image.open(jpeg_path)
    decoded.load()
    assert decoded.mode == "CMYK"
    out = ImageCms.profileToProfile(decoded, ImageCms.getOpenProfile(io.BytesIO(icc)), srgb,
                                    renderingIntent=0, outputMode="RGB")
    for i in range(len(CMYK_TILES)):
        x, y = i * TILE + TILE // 2, TILE // 2
        lines.append(("cmyk-test.icc", "cmyk", x, y, decoded.getpixel((x, y)), out.getpixel((x, y))))

    with open(os.path.join(OUT, "color-reference.tsv"), "w") as tsv:
        tsv.write("# profile\tkind\tx\ty\tinput\texpected_srgb   (scripts/reference/color-reference.py; CMYK input as ink, 0 = none)\n")
        for name, kind, x, y, sample, expected in lines:
            tsv.write(f"{name}\t{kind}\t{x}\t{y}\t{','.join(map(str, sample))}\t{','.join(map(str, expected))}\n")
    print(f"wrote {len(lines)} reference lines and {len(paths)} profiles to {os.path.normpath(OUT)}")


if __name__ == "__main__":
    main()
