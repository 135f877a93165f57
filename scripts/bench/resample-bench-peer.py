#!/usr/bin/env python3
"""Pillow's side of resample-bench, kept running as a child so each timing is one resize, not a start-up.

Reads commands on stdin, one per line, and answers each with one line:
    load PATH WIDTH HEIGHT MODE     raw pixels (RGB or RGBA, rows packed) -> "ok"
    resize WIDTH HEIGHT             one Image.resize(LANCZOS) of the loaded image -> milliseconds
Pillow's resize is its exact Lanczos3 (no reducing gap), premultiplied for RGBA (it converts to RGBa and
back, which is counted, as our premultiplication is), on one core.
"""
import sys
import time

from PIL import Image

image = None
for line in sys.stdin:
    fields = line.split()
    if not fields:
        continue
    if fields[0] == "load":
        path, width, height, mode = fields[1], int(fields[2]), int(fields[3]), fields[4]
        with open(path, "rb") as f:
            image = Image.frombytes(mode, (width, height), f.read())
        print("ok", flush=True)
    elif fields[0] == "resize":
        size = (int(fields[1]), int(fields[2]))
        start = time.perf_counter()
        image.resize(size, Image.LANCZOS)
        print(f"{(time.perf_counter() - start) * 1000:.3f}", flush=True)
