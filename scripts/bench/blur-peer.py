#!/usr/bin/env python3
"""The peers of Benchmarks' blur-bench (Sources/BlurBench), run by the Python that scripts/bench/transform-bench
sets up (pyvips, Pillow, NumPy). Each command reads a raw RGB8 file and prints one line:

    gaussblur RAW WIDTH HEIGHT SIGMA RUNS    best wall and cpu ms of libvips gaussblur, in memory both ways
    unsharp RAW WIDTH HEIGHT SIGMA RUNS      best wall and cpu ms of Pillow's UnsharpMask(SIGMA, 100, 0)
    accuracy RAW WIDTH HEIGHT SIGMA OURS     max and mean error of our blur (OURS, raw RGB8) and of libvips's
                                             against a float64 true gaussian on a 600x400 window

libvips's operation cache is turned off: otherwise every run after the first returns the cached image.
"""
import sys
import time

import numpy as np


def load(path, width, height):
    return open(path, "rb").read(), int(width), int(height)


def best(runs, body):
    """'wall cpu': the best wall-clock and the best processor time (all threads) of `runs` calls, in ms."""
    body()
    walls, cpus = [], []
    for _ in range(runs):
        start, cpu = time.perf_counter(), time.process_time()
        body()
        walls.append((time.perf_counter() - start) * 1000)
        cpus.append((time.process_time() - cpu) * 1000)
    return f"{min(walls):.2f} {min(cpus):.2f}"


def vips_image(data, width, height):
    import pyvips
    pyvips.cache_set_max(0)
    return pyvips.Image.new_from_memory(data, width, height, 3, "uchar")


def gaussian(a, sigma):
    r = int(np.ceil(4 * sigma))
    x = np.arange(-r, r + 1)
    k = np.exp(-x * x / (2 * sigma * sigma))
    k /= k.sum()
    for axis in (0, 1):
        out = np.zeros_like(a)
        for i, w in enumerate(k):
            out += w * np.roll(a, r - i, axis=axis)
        a = out
    return a


def main():
    command, path, width, height, sigma = sys.argv[1:6]
    data, width, height = load(path, width, height)
    sigma = float(sigma)
    if command == "gaussblur":
        image = vips_image(data, width, height)
        print(best(int(sys.argv[6]), lambda: image.gaussblur(sigma).write_to_memory()))
    elif command == "unsharp":
        from PIL import Image, ImageFilter
        image = Image.frombytes("RGB", (width, height), data)
        mask = ImageFilter.UnsharpMask(radius=sigma, percent=100, threshold=0)
        print(best(int(sys.argv[6]), lambda: image.filter(mask)))
    elif command == "accuracy":
        source = np.frombuffer(data, np.uint8).reshape(height, width, 3)
        ours = np.frombuffer(open(sys.argv[6], "rb").read(), np.uint8).reshape(height, width, 3)
        vips = np.frombuffer(vips_image(data, width, height).gaussblur(sigma).write_to_memory(),
                             np.uint8).reshape(height, width, 3)
        # A window far from the edges, with 4 sigmas of context so that np.roll's wrap never reaches it.
        y0, x0, h, w, m = 1000, 1500, 400, 600, int(np.ceil(4 * sigma))
        window = source[y0 - m:y0 + h + m, x0 - m:x0 + w + m].astype(np.float64)
        truth = gaussian(window, sigma)[m:m + h, m:m + w]
        parts = []
        for name, result in (("ours", ours), ("libvips", vips)):
            d = np.abs(result[y0:y0 + h, x0:x0 + w].astype(np.float64) - truth)
            parts.append(f"{name} max {d.max():.2f} mean {d.mean():.3f}")
        print("; ".join(parts))
    else:
        raise SystemExit(f"unknown command {command}")


if __name__ == "__main__":
    main()
