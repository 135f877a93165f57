#!/usr/bin/env python3
"""The peers of transform-bench, and the table. Called by scripts/bench/transform-bench with the work folder,
which holds photo-1.jpg ... (12 MP, written by `transform-bench photos`), and the transform-bench
executable, whose `run` writes ours/ (our thumbnails and our 25 % resize of photo 1) and prints our times.

Timing: best of 5 runs of each file (libvips with its default threads, as vipsthumbnail runs; ours and
Pillow use one core), and of that the best of ROUNDS rounds, each round timing ours, then libvips, then
Pillow, so a change in the machine's load hits all of them alike. vipsthumbnail is also timed as the
command, one process for all eight files (its start-up spread over them).
Whole process: our thumbnail-batch (JPEG coder and Core only) is timed as one process for all eight
files, like vipsthumbnail, at DecodeOptions.thumbnailReducingGap 1, 1.5 and 2 (the gap table), each gap
once per round in turn, wall and CPU time (user + system; on a loaded machine the wall time also counts
waits for a core); Pillow is also timed as one Python process for the batch (interpreter start-up
and imports included), next to its in-process time, which leaves both out.
Quality: each thumbnail (as written, JPEG q75) against the full image decoded at full size by Pillow
and resized to the thumbnail's size with Pillow's LANCZOS (no reducing gap): PSNR over RGB, averaged
over the photos.
"""
import glob
import math
import os
import resource
import subprocess
import sys
import time

import numpy as np
import pyvips
from PIL import Image

RUNS = 5
ROUNDS = 3
SIDE = 256
QUALITY = 75


def best(fn):
    t = math.inf
    for _ in range(RUNS):
        start = time.perf_counter()
        fn()
        t = min(t, time.perf_counter() - start)
    return t * 1000


def best_with_cpu(fn, child):
    """Best of RUNS: (wall ms, CPU ms), each the least over the runs. CPU time is user + system, of the
    child processes when `child`, else of this process: on a loaded machine it shows the work, where
    the wall time also counts the waits for a core."""
    wall = cpu = math.inf
    for _ in range(RUNS):
        usage = resource.getrusage(resource.RUSAGE_CHILDREN if child else resource.RUSAGE_SELF)
        start = time.perf_counter()
        fn()
        wall = min(wall, time.perf_counter() - start)
        after = resource.getrusage(resource.RUSAGE_CHILDREN if child else resource.RUSAGE_SELF)
        cpu = min(cpu, after.ru_utime + after.ru_stime - usage.ru_utime - usage.ru_stime)
    return wall * 1000, cpu * 1000


def psnr(a, b):
    mse = np.mean((a.astype(np.float64) - b.astype(np.float64)) ** 2)
    return 99.0 if mse == 0 else 10 * math.log10(255 ** 2 / mse)


def ours_round(work, binary):
    out = subprocess.run([binary, "run", work], check=True, capture_output=True, text=True).stdout
    return {k: float(v) for k, v in (line.split("\t") for line in out.split("\n") if line)}


GAPS = ("1", "1.5", "2")
PILLOW_BATCH = """
import sys
from PIL import Image
out = sys.argv[1]
for p in sys.argv[2:]:
    im = Image.open(p)
    im.draft("RGB", (%d, %d))
    im.thumbnail((%d, %d), Image.LANCZOS)
    im.save(out + "/" + p.rsplit("/", 1)[-1], quality=%d)
""" % (SIDE, SIDE, SIDE, SIDE, QUALITY)


def main(work, binary, batch, default_gap):
    photos = sorted(glob.glob(os.path.join(work, "photo-*.jpg")), key=lambda p: int(p.split("-")[-1][:-4]))
    for d in ("vips", "pillow", "vipsthumbnail", "pillow-batch") + tuple("ours-gap" + g for g in GAPS):
        os.makedirs(os.path.join(work, d), exist_ok=True)
    first = photos[0]
    im = Image.open(first).convert("RGB")
    im.load()
    size = (im.width // 4, im.height // 4)
    vimg = pyvips.Image.new_from_file(first).copy_memory()

    ours = {"thumbnail": math.inf, "resize": math.inf}
    times = {"vips": [math.inf] * len(photos), "pillow": [math.inf] * len(photos)}
    command_ms = pillow_ms = vips_resize_ms = pillow_batch_ms = math.inf
    batch_ms = {g: math.inf for g in GAPS}
    # CPU ms per photo of the batch processes, and of Pillow in process.
    cpu = {k: math.inf for k in GAPS + ("vipsthumbnail", "pillow-batch", "pillow")}

    def timed(key, fn, child, count):
        wall, used = best_with_cpu(fn, child)
        cpu[key] = min(cpu[key], used / count)
        return wall / count
    pillow_cpu = [math.inf] * len(photos)
    for _ in range(ROUNDS):
        for g in GAPS:
            ours_command = [batch, str(SIDE), g, os.path.join(work, "ours-gap" + g)] + photos
            batch_ms[g] = min(batch_ms[g], timed(g, lambda: subprocess.run(ours_command, check=True), True, len(photos)))
        ours = {k: min(v, ours_round(work, binary)[k]) for k, v in ours.items()}
        for i, p in enumerate(photos):
            name = os.path.basename(p)

            def vips_thumb():
                pyvips.Image.thumbnail(p, SIDE).write_to_file(os.path.join(work, "vips", name) + f"[Q={QUALITY}]")

            def pillow_thumb():
                im = Image.open(p)
                im.draft("RGB", (SIDE, SIDE))
                im.thumbnail((SIDE, SIDE), Image.LANCZOS)
                im.save(os.path.join(work, "pillow", name), quality=QUALITY)
            times["vips"][i] = min(times["vips"][i], best(vips_thumb))
            times["pillow"][i] = min(times["pillow"][i], best(pillow_thumb))
            pillow_cpu[i] = min(pillow_cpu[i], best_with_cpu(pillow_thumb, False)[1])
        command = ["vipsthumbnail", "-s", str(SIDE), "-o", os.path.join(work, "vipsthumbnail", "%s.jpg") + f"[Q={QUALITY}]"] + photos
        command_ms = min(command_ms, timed("vipsthumbnail", lambda: subprocess.run(command, check=True), True, len(photos)))
        pillow_command = [sys.executable, "-c", PILLOW_BATCH, os.path.join(work, "pillow-batch")] + photos
        pillow_batch_ms = min(pillow_batch_ms, timed("pillow-batch", lambda: subprocess.run(pillow_command, check=True), True, len(photos)))
        pillow_ms = min(pillow_ms, best(lambda: im.resize(size, Image.LANCZOS)))
        vips_resize_ms = min(vips_resize_ms, best(lambda: vimg.resize(0.25, kernel="lanczos3").copy_memory()))

    quality = {"ours": [], "vips": [], "vipsthumbnail": [], "pillow": []}
    quality.update({"ours-gap" + g: [] for g in GAPS})
    for p in photos:
        full = Image.open(p).convert("RGB")
        name = os.path.basename(p)
        for who in quality:
            thumb = np.asarray(Image.open(os.path.join(work, who, name)).convert("RGB"))
            reference = np.asarray(full.resize((thumb.shape[1], thumb.shape[0]), Image.LANCZOS))
            quality[who].append(psnr(thumb, reference))
    mean = lambda xs: sum(xs) / len(xs)

    ours_ms = float(ours["thumbnail"])
    vips_ms = mean(times["vips"])
    pillow_in_ms = mean(times["pillow"])
    cpu["pillow"] = mean(pillow_cpu)
    vips_db = mean(quality["vips"])
    print(f"\n256 px thumbnails, whole process, batch of {len(photos)} 12 MP JPEGs (JPEG q{QUALITY}), ms per photo")
    print(f"{'':44} {'ms':>8} {'CPU ms':>8} {'PSNR dB':>9}")
    for g in GAPS:
        print(f"{'ours, thumbnail-batch, gap ' + g + (' (default)' if g == default_gap else ''):44} "
              f"{batch_ms[g]:8.1f} {cpu[g]:8.1f} {mean(quality['ours-gap' + g]):9.3f}")
    print(f"{'vipsthumbnail (command)':44} {command_ms:8.1f} {cpu['vipsthumbnail']:8.1f} {mean(quality['vipsthumbnail']):9.3f}")
    print(f"{'libvips (pyvips thumbnail, in process)':44} {vips_ms:8.1f} {'':>8} {vips_db:9.3f}")
    print(f"{'Pillow, one python process (draft + LANCZOS)':44} {pillow_batch_ms:8.1f} {cpu['pillow-batch']:8.1f} {mean(quality['pillow']):9.3f}")
    print(f"{'Pillow, in process (no start-up, no import)':44} {pillow_in_ms:8.1f} {cpu['pillow']:8.1f} {mean(quality['pillow']):9.3f}")
    mine = batch_ms[default_gap]
    print(f"goal (default gap {default_gap}): ours / Pillow in process {mine / pillow_in_ms:.3f}x (<= 1.0), "
          f"/ Pillow process {mine / pillow_batch_ms:.3f}x, / vipsthumbnail {mine / command_ms:.3f}x (<= 0.75); "
          f"PSNR {mean(quality['ours-gap' + default_gap]) - vips_db:+.4f} dB against libvips's (>= 0), "
          f"{mean(quality['ours-gap' + default_gap]) - mean(quality['vipsthumbnail']):+.4f} against vipsthumbnail's")
    for g in GAPS:
        print(f"gap {g}: wall / Pillow in process {batch_ms[g] / pillow_in_ms:.3f}, / vipsthumbnail {batch_ms[g] / command_ms:.3f}; "
              f"CPU / Pillow in process {cpu[g] / cpu['pillow']:.3f}, / vipsthumbnail {cpu[g] / cpu['vipsthumbnail']:.3f}; "
              f"PSNR {mean(quality['ours-gap' + g]) - vips_db:+.4f} dB against libvips's")
    print(f"\n256 px thumbnail of {len(photos)} 12 MP JPEGs: decode + resize + JPEG q{QUALITY}, mean per photo")
    print(f"{'':34} {'ms':>8} {'PSNR dB':>9} {'ours/this':>10}")
    rows = [("ours (JPEGCoder thumbnail)", ours_ms, mean(quality["ours"])),
            ("libvips (pyvips thumbnail)", vips_ms, mean(quality["vips"])),
            ("vipsthumbnail (command)", command_ms, mean(quality["vipsthumbnail"])),
            ("Pillow (draft + thumbnail LANCZOS)", mean(times["pillow"]), mean(quality["pillow"]))]
    for label, ms, db in rows:
        print(f"{label:34} {ms:8.1f} {db:9.2f} {ours_ms / ms:10.3f}")
    print(f"goal: PSNR >= libvips's ({mean(quality['ours']) - mean(quality['vips']):+.2f} dB), "
          f"time <= 1.0x libvips's ({ours_ms / vips_ms:.3f}x)")

    ours_resize = np.asarray(Image.open(os.path.join(work, "ours", "resize-photo-1.png")).convert("RGB"))
    agreement = psnr(ours_resize, np.asarray(im.resize(size, Image.LANCZOS)))
    resize_ms = float(ours["resize"])
    print(f"\nFull-resolution resize to 25 % ({im.width}x{im.height} -> {size[0]}x{size[1]}), Lanczos3, decoded pixels in memory")
    print(f"{'':34} {'ms':>8} {'ours/this':>10}")
    for label, ms in (("ours (ImageResampler .lanczos3)", resize_ms), ("Pillow (resize LANCZOS)", pillow_ms),
                      ("libvips (resize lanczos3)", vips_resize_ms)):
        print(f"{label:34} {ms:8.1f} {resize_ms / ms:10.3f}")
    print(f"goal: <= 1.0x the faster ({resize_ms / min(pillow_ms, vips_resize_ms):.3f}x); "
          f"ours vs Pillow's pixels: PSNR {agreement:.1f} dB")


if sys.argv[4] not in GAPS:  # a default gap other than those of the table gets its own row
    GAPS += (sys.argv[4],)
main(sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4])
