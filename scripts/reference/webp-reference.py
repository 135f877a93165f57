#!/usr/bin/env python3
"""Reference frames for the WebP conformance corpus, written to Tests/WebPCoderTests/webp-reference.tsv.

For every WebP in ../shared/corpus/conformance/webp (or the folder given as the first argument) this
decodes every frame with Pillow and writes one line per frame:

    file, frame, width, height, duration_ms, fnv1a64 of the RGBA8 bytes, mode, note

`WebImageWebPCoderTests` (WebPReferenceTests.swift) decodes each file with WebPCoder, converts every
frame to RGBA8 and compares its hash, size and duration with these lines.

Why Pillow is an independent reference
--------------------------------------
Pillow (12.x, with its own bundled libwebp, 1.6.0 here) reads every WebP, still or animated, through
libwebp's WebPAnimDecoder: libwebp composes the frames (blend, dispose, key frames) itself. WebPCoder
composes animation frames with its own code (WebPFrameSource + WebPCompositing) over WebPDemux, so
the frame hashes check our compositor against libwebp's. Each frame's bitstream is decoded by libwebp
on both sides with the default WebPDecoderConfig (fancy upsampling on, no dithering), so stills,
lossy ones included, must match to the byte.

How the RGBA8 bytes are made
----------------------------
* The bytes are libwebp's RGBA output as Pillow receives it (see `frames_of` for the one case where
  Pillow's own RGB image would hide libwebp's alpha). Opaque pixels are checked to equal Pillow's.
* Fully transparent pixels are normalised to 0,0,0,0 on both sides (here, and in the Swift test
  before hashing): what RGB sits under alpha 0 is not part of the picture, and the two compositors
  legitimately leave different values there (WebPAnimDecoder copies or blends the previous canvas's
  RGB; a `-exact` lossless file keeps whatever RGB the encoder stored). Every other pixel must be
  identical.
* Durations: `duration_ms` is what WebPCoder must report: the frame's ANMF duration, except that a
  duration of 10 ms or less plays as 100 ms (browsers' rule for tiny delays, as for GIF). The raw
  duration comes from Pillow's info["duration"] (WebPAnimDecoder's timestamps); when the clamp
  changes it the note says so. Stills have duration 0.
* `mode` is Pillow's mode: WebPCoder must decode a still (a file without the VP8X animation flag)
  to RGB8 exactly when this is "RGB". An animated container is composed on an RGBA canvas.

The hash is FNV-1a 64 over the frame's RGBA8 bytes, rows top to bottom, no padding.
Run: python3 scripts/reference/webp-reference.py [corpus-webp-folder]   (Pillow and NumPy from scripts/python/venv; about a minute)
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))
import use_venv  # noqa: E402 (the scripts' one Python environment: scripts/python/requirements.txt)

use_venv.ensure()

import numpy as np  # noqa: E402
from pixelhash import fnv1a64, fnv1a64_many  # noqa: F401 (shared with the other reference scripts)
from PIL import Image, _webp, features

#: Durations at or below this many milliseconds play as `TINY_DURATION_PLAYS_AS` (browsers' clamp).
TINY_DURATION_LIMIT = 10
TINY_DURATION_PLAYS_AS = 100


def frames_of(path):
    """(mode, [(RGBA8 array, raw duration ms)]) for every frame, in order.

    The pixels are the RGBA bytes of the WebPAnimDecoder that Pillow wraps (Pillow's `_webp` module),
    because for a file whose VP8X alpha flag is unset Pillow reads those bytes as "RGBX" and so turns
    canvas that no frame covers (transparent in libwebp's output) into opaque black
    (gen-anim-single-frame.webp). For every other file the bytes are exactly Pillow's RGBA frames.
    """
    data = open(path, "rb").read()
    image = Image.open(path)
    mode = image.mode
    decoder = _webp.WebPAnimDecoder(data)
    (width, height), *_ = decoder.get_info()
    result = []
    for index in range(getattr(image, "n_frames", 1)):
        image.seek(index)
        image.load()
        raw, _ = decoder.get_next()
        pixels = np.frombuffer(raw, dtype=np.uint8).reshape(height, width, 4).copy()
        pillows = np.array(image.convert("RGBA"), dtype=np.uint8)
        opaque = pixels[:, :, 3] == 255
        assert (pixels[opaque] == pillows[opaque]).all(), f"{path} #{index}: Pillow changed opaque pixels"
        pixels[pixels[:, :, 3] == 0] = 0
        result.append((pixels, image.info.get("duration", 0)))
    return mode, result


def is_animated(data: bytes) -> bool:
    """The VP8X animation flag (bit 1 of the flags byte), which is what makes WebPCoder compose frames."""
    return data[12:16] == b"VP8X" and bool(data[20] & 0x02)


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    folder = sys.argv[1] if len(sys.argv) > 1 else os.path.join(here, "..", "..", "..", "shared", "corpus",
                                                                  "conformance", "webp")
    print("Pillow's libwebp", features.version("webp"), file=sys.stderr)
    lines = ["file\tframe\twidth\theight\tduration_ms\tfnv1a64\tmode\tnote"]
    for name in sorted(os.listdir(folder)):
        if not name.endswith(".webp"):
            continue
        mode, frames = frames_of(os.path.join(folder, name))
        animated = is_animated(open(os.path.join(folder, name), "rb").read())
        if len(frames) >= 4:
            stacked = np.stack([f.reshape(-1) for f, _ in frames])
            hashes = fnv1a64_many(stacked)
        else:
            hashes = [fnv1a64(f.tobytes()) for f, _ in frames]
        for index, ((pixels, raw), digest) in enumerate(zip(frames, hashes)):
            height, width = pixels.shape[:2]
            notes = []
            if animated:
                duration = TINY_DURATION_PLAYS_AS if raw <= TINY_DURATION_LIMIT else raw
                if duration != raw:
                    notes.append(f"Pillow duration {raw} ms, clamped")
            else:
                duration = 0
            transparent = int((pixels[:, :, 3] == 0).sum())
            if transparent:
                notes.append(f"{transparent} px fully transparent (normalised to 0,0,0,0)")
                if mode == "RGB":
                    notes.append("Pillow's RGB image shows them opaque black: the VP8X alpha flag is unset")
            lines.append(f"{name}\t{index}\t{width}\t{height}\t{duration}\t{digest:016x}\t{mode}\t{'; '.join(notes)}")
        print(name, len(frames), "frames", mode, file=sys.stderr)
    target = os.path.join(here, "..", "..", "Tests", "WebPCoderTests", "webp-reference.tsv")
    with open(target, "w") as f:
        f.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
