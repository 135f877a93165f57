#!/usr/bin/env python3
"""Reference frames for the GIF conformance corpus, written to Tests/GIFCoderTests/gif-reference.tsv.

For every GIF in ../shared/corpus/conformance/gif (or the folder given as the first argument) this
composes every frame to RGBA8 the way browsers do and writes one line per frame:

    file, frame, width, height, duration_ms, fnv1a64 of the RGBA8 bytes, pillow, note

`WebImageGIFCoderTests` decodes each file with GIFCoder and compares every frame's hash, size and
duration with these lines.

How a frame is produced
-----------------------
* Pillow decodes each frame's LZW data and de-interlaces it: the frame is cut out of the file into a
  one-frame GIF of its own size (with a dummy, non-gray 256-entry palette so Pillow keeps mode "P"
  and hands back the raw palette indices), so Pillow's decoder is the reference for the pixels.
* The frames are then composed here, explicitly with the browser policy (WHATWG/Chromium/Firefox),
  because Pillow's own compositor differs from browsers on purpose in a few places:
    - the canvas is the logical screen grown to hold the first frame (the union of the screen and
      frame 0's rectangle, Chromium's policy; a 0x0 screen takes frame 0's extent); pixels of later
      frames outside it are clipped (imagers-oob.gif, imagers-issue_1455_oversized.gif grow);
    - the canvas starts fully transparent; the background color index is ignored
      (Pillow fills the area the first frame does not cover with the background color);
    - disposal 2 ("restore to background") clears the frame's rectangle to transparent
      (Pillow 12 paints it with the background color, or with the transparent index's palette color,
      e.g. opaque cyan in gen-disposal-2-background.gif);
    - disposal 3 restores the canvas as it was before the frame; other values (0, 1, 4-7) keep it;
    - a pixel equal to the transparent index leaves the canvas as it is;
    - a palette index past the end of the frame's color table also leaves the canvas as it is
      (no corpus file has one; the script counts them and reports it in the note column).
* Durations follow the browser clamp: a delay of 0 or 1 centiseconds plays as 100 ms. The script
  checks each GCE delay against Pillow's info["duration"] and reports a disagreement.
* `pillow` says whether Pillow's own composition (seek + convert("RGBA")) gives the same bytes:
  "same", or "differs" with the reason in `note` (every difference is one of the policies above).

The hash is FNV-1a 64 over the frame's RGBA8 bytes, rows top to bottom, no padding.
Run: python3 scripts/reference/gif-reference.py [corpus-gif-folder]  (takes a minute or two: pure Python hashing)
"""
import io
import os
import struct
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))
import use_venv  # noqa: E402 (the scripts' one Python environment: scripts/python/requirements.txt)

use_venv.ensure()

import numpy as np  # noqa: E402
from pixelhash import fnv1a64, fnv1a64_many  # noqa: F401 (shared with the other reference scripts)
from PIL import Image


def sub_blocks(data: bytes, p: int):
    """Returns (the sub-blocks' bytes including length bytes and terminator, offset after them)."""
    start = p
    while True:
        n = data[p]
        p += 1 + n
        if n == 0:
            return data[start:p], p


def parse(data: bytes):
    """Logical screen, global palette, loop count and frames (with their raw LZW bytes) of a GIF."""
    width, height, flags = struct.unpack("<HHB", data[6:11])
    p = 13
    global_palette = None
    if flags & 0x80:
        n = 2 << (flags & 7)
        global_palette = data[p:p + 3 * n]
        p += 3 * n
    frames, loop, control = [], None, (0, -1, 0)  # (disposal, transparent index, delay cs)
    while p < len(data):
        kind = data[p]
        p += 1
        if kind == 0x21:
            label = data[p]
            blocks, end = sub_blocks(data, p + 1)
            if label == 0xF9 and blocks[0] >= 4:
                packed, delay, transparent = struct.unpack("<BHB", blocks[1:5])
                control = ((packed >> 2) & 7, transparent if packed & 1 else -1, delay)
            elif label == 0xFF and blocks[0] == 11 and blocks[1:12] in (b"NETSCAPE2.0", b"ANIMEXTS1.0"):
                sub = blocks[12:]
                if len(sub) >= 4 and sub[1] == 1:
                    loop = sub[2] | sub[3] << 8
            p = end
        elif kind == 0x2C:
            x, y, w, h, frame_flags = struct.unpack("<HHHHB", data[p:p + 9])
            descriptor = data[p:p + 9]
            p += 9
            palette = global_palette
            if frame_flags & 0x80:
                n = 2 << (frame_flags & 7)
                palette = data[p:p + 3 * n]
                p += 3 * n
            code_size = data[p]
            lzw, p = sub_blocks(data, p + 1)
            frames.append(dict(x=x, y=y, w=w, h=h, interlaced=bool(frame_flags & 0x40), palette=palette,
                               code_size=code_size, lzw=lzw, disposal=control[0], transparent=control[1],
                               delay=control[2], descriptor=descriptor))
            control = (0, -1, 0)
        elif kind == 0x3B:
            break
        else:
            raise ValueError(f"unknown block 0x{kind:02x} at {p - 1}")
    return width, height, loop, frames


def frame_indices(frame) -> np.ndarray:
    """The frame's palette indices (height x width), decoded and de-interlaced by Pillow."""
    w, h = frame["w"], frame["h"]
    dummy = bytes(v for i in range(256) for v in (i, (i * 7 + 3) & 255, 255 - i))  # not a gray ramp
    flags = 0x80 | 0x07 | (0x40 if frame["interlaced"] else 0)  # local table of 256 entries
    one = (b"GIF89a" + struct.pack("<HHBBB", w, h, 0, 0, 0)
           + b"\x2C" + struct.pack("<HHHHB", 0, 0, w, h, flags) + dummy
           + bytes([frame["code_size"]]) + frame["lzw"] + b"\x3B")
    image = Image.open(io.BytesIO(one))
    image.load()
    assert image.mode == "P", image.mode
    return np.frombuffer(image.tobytes(), dtype=np.uint8).reshape(h, w)


def canvas_size(width, height, frames):
    """The logical screen grown to hold frame 0, as Chromium does."""
    if not frames:
        return width, height
    first = frames[0]
    return max(width, first["x"] + first["w"]), max(height, first["y"] + first["h"])


def compose(width, height, frames):
    """Every frame composed with the browser policy; returns (list of RGBA8 bytes, out-of-range count)."""
    canvas = np.zeros((height, width, 4), dtype=np.uint8)
    out, out_of_range = [], 0
    for frame in frames:
        before = canvas.copy()
        indices = frame_indices(frame)
        palette = frame["palette"] or b""
        count = len(palette) // 3
        table = np.zeros((256, 4), dtype=np.uint8)
        table[:count, :3] = np.frombuffer(palette, dtype=np.uint8).reshape(count, 3)
        table[:count, 3] = 255
        x0, y0 = max(0, frame["x"]), max(0, frame["y"])
        x1, y1 = min(width, frame["x"] + frame["w"]), min(height, frame["y"] + frame["h"])
        if x0 < x1 and y0 < y1:
            region = indices[y0 - frame["y"]:y1 - frame["y"], x0 - frame["x"]:x1 - frame["x"]]
            shown = region < count
            out_of_range += int((~shown).sum())
            if frame["transparent"] >= 0:
                shown &= region != frame["transparent"]
            target = canvas[y0:y1, x0:x1]
            target[shown] = table[region[shown]]
        out.append(canvas.tobytes())
        if frame["disposal"] == 2 and x0 < x1 and y0 < y1:
            canvas[y0:y1, x0:x1] = 0
        elif frame["disposal"] == 3:
            canvas = before
    return out, out_of_range


def pillow_frames(path, count):
    """Pillow's own composition of each frame as RGBA8 bytes (None where its canvas size differs)."""
    image = Image.open(path)
    result = []
    for index in range(count):
        image.seek(index)
        result.append((image.size, image.convert("RGBA").tobytes(), image.info.get("duration")))
    return result


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    folder = sys.argv[1] if len(sys.argv) > 1 else os.path.join(here, "..", "..", "..", "shared", "corpus",
                                                                  "conformance", "gif")
    lines = ["file\tframe\twidth\theight\tduration_ms\tfnv1a64\tpillow\tnote"]
    for name in sorted(os.listdir(folder)):
        if not name.endswith(".gif"):
            continue
        path = os.path.join(folder, name)
        width, height, _, frames = parse(open(path, "rb").read())
        width, height = canvas_size(width, height, frames)
        composed, out_of_range = compose(width, height, frames)
        if len(composed) >= 16:
            hashes = fnv1a64_many(np.frombuffer(b"".join(composed), dtype=np.uint8).reshape(len(composed), -1))
        else:
            hashes = [fnv1a64(frame) for frame in composed]
        pillow = pillow_frames(path, len(frames))
        for index, (frame, rgba, digest) in enumerate(zip(frames, composed, hashes)):
            size, pillow_rgba, pillow_duration = pillow[index]
            notes = []
            if size != (width, height):
                agrees = "differs"
                notes.append(f"Pillow grows the canvas to {size[0]}x{size[1]}")
            elif pillow_rgba == rgba:
                agrees = "same"
            else:
                agrees = "differs"
                notes.append(explain(np.frombuffer(rgba, np.uint8).reshape(height, width, 4),
                                     np.frombuffer(pillow_rgba, np.uint8).reshape(height, width, 4), frame, index))
            duration = 100 if frame["delay"] <= 1 else frame["delay"] * 10
            if pillow_duration is not None and pillow_duration != frame["delay"] * 10:
                notes.append(f"Pillow duration {pillow_duration} ms, GCE delay {frame['delay']} cs")
            if out_of_range and index == 0:
                notes.append(f"{out_of_range} pixels use an index past the palette")
            lines.append(f"{name}\t{index}\t{width}\t{height}\t{duration}\t{digest:016x}\t{agrees}\t{'; '.join(notes)}")
        print(name, len(frames), "frames", file=sys.stderr)
    target = os.path.join(here, "..", "..", "Tests", "GIFCoderTests", "gif-reference.tsv")
    with open(target, "w") as f:
        f.write("\n".join(lines) + "\n")


def explain(ours, pillows, frame, index):
    """Names the browser policy behind each differing pixel (any pixel it cannot name is UNEXPLAINED)."""
    differ = np.any(ours != pillows, axis=2)
    a, b = ours[differ], pillows[differ]
    both_clear = (a[:, 3] == 0) & (b[:, 3] == 0)
    cleared = (a[:, 3] == 0) & (b[:, 3] == 255)
    other = len(a) - int(both_clear.sum()) - int(cleared.sum())
    parts = []
    if both_clear.any():
        parts.append(f"{int(both_clear.sum())} px fully transparent in both, Pillow keeps a palette RGB under alpha 0")
    if cleared.any():
        parts.append(f"{int(cleared.sum())} px transparent here (blank canvas or disposal 2), "
                     "opaque background color in Pillow")
    if other:
        parts.append(f"{other} px UNEXPLAINED")
    return "; ".join(parts)


if __name__ == "__main__":
    main()
