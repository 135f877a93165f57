#!/usr/bin/env python3
"""server-soak: webimage-server under good traffic, then good traffic mixed with hostile origins and clients.

Started by `scripts/bench/soak` (which builds the server in release and makes a virtual environment with Pillow), or:

    python soak.py --server PATH/TO/webimage-server [--duration 90] [--workers 32] [--hostile-share 0.3]

Processes: this script (clients, sampling, report), the origin process (origin.py: a good origin, a probe origin, a
hostile origin and a canary, each on a loopback port of its own) and the server, with signing keys, a disk result cache in a
temporary directory, the three origins in IMGPROXY_ALLOWED_SOURCES and loopback sources allowed. The canary's port is
outside the allow-list: nothing may ever connect to it.

Phases:
  warm-up  40 good URLs and the big answer, unmeasured; then the baseline of RSS and open fds.
  (a)      good traffic only for --duration seconds: --workers closed-loop clients on keep-alive connections.
  (b)      the same good traffic (other URLs of the same kinds) for --duration seconds, plus hostile requests making
           --hostile-share of all requests (pixel bombs, truncated and bit-flipped files, stalls, drips, lying
           Content-Length, redirect loops, bytes after the body and a smuggled second response on the good origin's
           pooled connections, SSRF spellings and redirects aimed at the canary), a poisoning probe (one overflow
           answer at a time from the probe origin, then, once its extra bytes wait unread in the server's pooled
           connection, a fresh good source from there, whose answer must be its own), plus slow clients for all but its
           last 15 s (slowloris heads at 1 byte/s, idle keep-alive connections, slow readers of a 6.8 MB answer,
           requests dropped mid-way).
  (c)      15 s without load (slow clients are left for the server to close); RSS and fds are read at its end.

Every good URL has one expected answer (format, width, height), unique among all good URLs with a different
answer: the sources have distinct aspect ratios and each URL fits one width. Every good answer is checked: either
byte-identical to an answer of that URL already decoded and checked, or decoded whole (Pillow) and checked now.
The smuggled image is a 12:1 bar, so a poisoned answer can never pass.

Exit status: 1 on a wrong image, a canary contact, an fd leak or a hang (a request without an answer after 30 s,
an idle or slowloris connection still held after 30 s); 3 when only performance targets are missed (success
ratio, p99, RSS); 0 otherwise. settings.py holds the targets and the load.
"""
import argparse
import asyncio
import json
import os
import random
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time

from catalogue import BIG_SOURCE
from clients import Clients
from images import make_images
from measure import Phase, Sampler, cpu_seconds, fd_breakdown, malloc_stats, memory_rollup, metric_values
from report import GAUGES, report
from settings import (DROPPERS_PER_SECOND, HANG_SECONDS, HOT_URLS, RESULT_MEMORY, SETTLE_SECONDS, SOURCE_BYTES,
                      SOURCE_MEMORY, requests_queue_size)
from traffic import Connection, Signer, good_url_pools

HERE = os.path.dirname(os.path.abspath(__file__))
# The server's default worker count (its cores), passed explicitly so the queue size is known to match it.
WORKERS = os.cpu_count()


async def soak(args, ports, server_port, pid, signer):
    rng = random.Random(args.seed)
    warmup, pool_a, pool_b = good_url_pools(signer, ports["good"], rng)
    big_path = signer.path("", f"http://127.0.0.1:{ports['good']}/{BIG_SOURCE[0]}", "png")
    clients = Clients(server_port, ports, signer, rng, big_path)
    sampler = Sampler(pid, server_port, ports)
    # Droppers ask for URLs no phase asks, so each dropped request starts real work.
    spare = [signer.path(f"rs:fit:{w}:{w}", f"http://127.0.0.1:{ports['good']}/p32.jpg?v=drop{w}", "webp")
             for w in range(100, 100 + DROPPERS_PER_SECOND * (args.duration + 10))]

    async def sample_every_second():
        while sampler.read(clients.phase.name if clients.phase else "setup") is not None:
            clients.note_released(sampler.held, time.monotonic())
            await asyncio.sleep(1)
    sampling = asyncio.ensure_future(sample_every_second())
    gauges = []
    load_over = asyncio.Event()

    async def scrape_every_five_seconds():
        # Until the load is over: in phase (c) the server's only sockets are the ones it should have let go.
        while not load_over.is_set():
            text = await metrics(server_port)
            gauges.append((time.monotonic() - sampler.t0, clients.phase.name if clients.phase else "setup")
                          + tuple(sum(metric_values(text, name).values()) for name in GAUGES))
            try:
                await asyncio.wait_for(load_over.wait(), 5)
            except asyncio.TimeoutError:
                pass
    scraping = asyncio.ensure_future(scrape_every_five_seconds())

    clients.phase = Phase("warm-up")
    connection = Connection(server_port)
    for url, expected in warmup:
        clients.check(url, expected, *await asyncio.wait_for(connection.get(url), HANG_SECONDS))
    await asyncio.wait_for(connection.get(big_path), HANG_SECONDS)
    connection.close()
    await asyncio.sleep(3)
    baseline = [sampler.read("baseline") for _ in range(3)]
    run = {"baseline_fds": min(s[3] for s in baseline), "baseline_rss": statistics.median(s[2] for s in baseline),
           "baseline_breakdown": fd_breakdown(pid, server_port, ports),
           "metrics_before": await metrics(server_port)}
    cpu_before = time.process_time()

    a, b = Phase("a"), Phase("b")
    run["machine"] = {"before (a)": (os.getloadavg()[0], cpu_seconds(pid))}
    await run_phase(args, clients, a, pool_a)
    run["machine"]["after (a)"] = (os.getloadavg()[0], cpu_seconds(pid))
    run["metrics_between"] = await metrics(server_port)
    slow_until = time.monotonic() + max(0, args.duration - SETTLE_SECONDS)
    slow_tasks = await run_phase(args, clients, b, pool_b, args.hostile_share, slow_until, spare)
    run["machine"]["after (b)"] = (os.getloadavg()[0], cpu_seconds(pid))
    load_ended = time.monotonic()
    load_over.set()
    await scraping
    clients.phase = Phase("c")
    await asyncio.sleep(max(0.0, load_ended + SETTLE_SECONDS - time.monotonic()))
    run["after"] = sampler.read("c end")
    run["after_breakdown"] = fd_breakdown(pid, server_port, ports)
    run["memory"] = memory_rollup(pid)
    run["metrics_after"] = await metrics(server_port)
    run["client_cpu"] = time.process_time() - cpu_before
    if args.malloc_stats:
        run["malloc_stats"] = malloc_stats(pid, args.log_path)
    if args.linger:
        run["linger"] = await linger(sampler, run["baseline_fds"], args.linger, load_ended)
    for task in slow_tasks:
        task.cancel()
    await asyncio.gather(*slow_tasks, return_exceptions=True)
    sampling.cancel()
    run["gauges"] = gauges
    return clients, sampler, a, b, run


async def run_phase(args, clients, phase, pool, hostile_share=0.0, slow_until=None, spare=None):
    """Good workers (and hostile requests and slow clients when asked) for --duration seconds; waits for the good
    and hostile requests in flight, and returns the slow clients' tasks, left running."""
    clients.phase = phase
    clients.running = True
    phase.started = time.monotonic()
    tasks = [asyncio.ensure_future(clients.good_worker(pool, pool[:HOT_URLS])) for _ in range(args.workers)]
    if hostile_share:
        tasks.append(asyncio.ensure_future(clients.hostile_dispatcher(phase, hostile_share)))
        tasks.append(asyncio.ensure_future(clients.poisoning_probe(phase)))
    slow = asyncio.ensure_future(clients.slow_clients(slow_until, spare)) if slow_until else None
    await asyncio.sleep(args.duration)
    clients.running = False
    await asyncio.gather(*tasks)
    phase.ended = time.monotonic()
    return (await slow) if slow else []


async def linger(sampler, baseline_fds, seconds, load_ended):
    """Watches until the fds, pooled origin connections included, are back to the baseline."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if sampler.read("linger")[3] <= baseline_fds:
            return f"were back to the baseline's {baseline_fds}, pool included, {time.monotonic() - load_ended:.0f} s after the load"
        await asyncio.sleep(1)
    return f"were still {sampler.samples[-1][3]} (baseline {baseline_fds}) {time.monotonic() - load_ended:.0f} s after the load"


async def metrics(server_port):
    connection = Connection(server_port)
    try:
        _, _, body = await asyncio.wait_for(connection.get("/metrics"), HANG_SECONDS)
        return body.decode()
    finally:
        connection.close()


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_for_health(port, process, seconds=60):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise SystemExit(f"soak: the server exited with status {process.returncode}")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1) as s:
                s.sendall(b"GET /health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
                if s.recv(64).startswith(b"HTTP/1.1 200"):
                    return
        except OSError:
            pass
        time.sleep(0.1)
    raise SystemExit("soak: the server never answered /health")


def origin_stats(port):
    async def ask():
        connection = Connection(port)
        try:
            _, _, body = await asyncio.wait_for(connection.get("/__stats"), HANG_SECONDS)
            return json.loads(body)
        finally:
            connection.close()
    return asyncio.run(ask())


def main():
    parser = argparse.ArgumentParser(description="webimage-server soak: good traffic, then hostile traffic too.")
    parser.add_argument("--server", required=True, help="the webimage-server binary (a release build)")
    parser.add_argument("--duration", type=int, default=90, help="seconds of phase (a), and of phase (b) (90)")
    parser.add_argument("--workers", type=int, default=32, help="closed-loop good clients (32)")
    parser.add_argument("--hostile-share", type=float, default=0.3, help="hostile share of requests in (b) (0.3)")
    parser.add_argument("--seed", type=int, default=23, help="seeds the images, URLs and choices (23)")
    parser.add_argument("--linger", type=int, default=0,
                        help="after the report's sample, watch up to this many seconds more until all fds, pooled "
                             "origin connections included, are back to the baseline (0: do not)")
    parser.add_argument("--overflow-delay-ms", type=float, default=0,
                        help="send the good origin's bytes past a body this long after the answer instead of with it "
                             "(0); see origin.py")
    parser.add_argument("--server-env", action="append", default=[], metavar="NAME=VALUE",
                        help="another setting for the server (repeatable), over the soak's own; for experiments")
    parser.add_argument("--malloc-stats", action="store_true",
                        help="at the end, print glibc's malloc_stats() of the server (gdb attaches for a moment)")
    parser.add_argument("--keep", action="store_true", help="keep the temporary directory (images, cache, log)")
    args = parser.parse_args()

    workdir = tempfile.mkdtemp(prefix="server-soak-")
    images = os.path.join(workdir, "images")
    os.makedirs(images)
    processes = []
    started = time.monotonic()
    try:
        make_images(images, args.seed)
        origin = subprocess.Popen([sys.executable, os.path.join(HERE, "origin.py"), images, str(args.overflow_delay_ms)],
                                  stdout=subprocess.PIPE, text=True)
        processes.append(origin)
        ports = json.loads(origin.stdout.readline())
        signer = Signer()
        server_port = free_port()
        shown = {
            "IMGPROXY_BIND": f"127.0.0.1:{server_port}",
            "IMGPROXY_ALLOWED_SOURCES": ",".join(f"http://127.0.0.1:{ports[name]}/" for name in ("good", "probe", "hostile")),
            "IMGPROXY_ALLOW_LOOPBACK_SOURCE_ADDRESSES": "true",
            "IMGPROXY_WORKERS": str(WORKERS),
            "IMGPROXY_REQUESTS_QUEUE_SIZE": str(requests_queue_size(args.workers)),
            "WEBIMAGE_SERVER_CACHE_DIR": os.path.join(workdir, "cache"),
            "WEBIMAGE_SERVER_RESULT_MEMORY": str(RESULT_MEMORY),
            "WEBIMAGE_SERVER_SOURCE_MEMORY": str(SOURCE_MEMORY),
            "WEBIMAGE_SERVER_SOURCE_BYTES": str(SOURCE_BYTES),
            "LOG_LEVEL": "error",
        }
        for setting in args.server_env:
            name, _, value = setting.partition("=")
            shown[name] = value
        environment = dict(os.environ, **shown, IMGPROXY_KEY=signer.key.hex(), IMGPROXY_SALT=signer.salt.hex())
        log_path = args.log_path = os.path.join(workdir, "server.log")
        with open(log_path, "w") as log:
            server = subprocess.Popen([args.server], env=environment, stdout=log, stderr=log, stdin=subprocess.DEVNULL)
        processes.append(server)
        wait_for_health(server_port, server)
        print(f"origins on ports good {ports['good']}, probe {ports['probe']}, hostile {ports['hostile']}, canary "
              f"{ports['canary']}; server "
              f"{server_port} (pid {server.pid}); set up in {time.monotonic() - started:.0f} s", flush=True)
        clients, sampler, a, b, run = asyncio.run(soak(args, ports, server_port, server.pid, signer))
        with open(log_path) as f:
            run["server_log"] = "".join(f.readlines()[-20:])
        status = report(args, shown, clients, sampler, a, b, run, origin_stats(ports["good"]))
        print(f"\ntotal {time.monotonic() - started:.0f} s; exit status {status}")
        return status
    finally:
        for process in reversed(processes):
            if process.poll() is None:
                process.send_signal(signal.SIGTERM)
                try:
                    process.wait(10)
                except subprocess.TimeoutExpired:
                    process.kill()
                    process.wait()
        if args.keep:
            print(f"kept {workdir}")
        else:
            shutil.rmtree(workdir, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
