#!/usr/bin/env python3
"""Signed imgproxy URLs and HTTP load for scripts/deploy/fleet-check (standard library only).

  fleet-load.py fetch --base URL --list FILE ...     GET every path of FILE once; one line per path:
                                                    path status etag sha256 bytes
  fleet-load.py load --base URL --seconds N ...      GET for N seconds from --concurrency threads, a
                                                    --fresh share of them never-seen URLs (processed),
                                                    the rest from a small hot set; prints one JSON line
  fleet-load.py urls --count N ...                   N signed paths, one per line

URLs are /{signature}/rs:fill:W:H:1/{base64url source}.{ext} over the samples on --origin; the signature
is imgproxy's: base64url (no padding) of HMAC-SHA256 with the key over salt + path, key and salt in hex.
"""
import argparse
import base64
import hashlib
import hmac
import http.client
import itertools
import json
import sys
import threading
import time
import urllib.parse

# Stills of Examples/Resources (480x320 and 160x160); corrupt.jpg and the animations are left out.
SAMPLES = ["baseline.jpg", "progressive.jpg", "lossy.webp", "lossless.webp", "badge-alpha.png"]
FORMATS = ["webp", "jpg", "png"]
# Output sizes: enlarged fills from 64 px up to --largest (1200 by default) in steps of 7 px, so each new
# URL costs a real decode, resample and encode, and some are in flight whenever a node is killed.
SMALLEST, SIZE_STEP = 64, 7
# Scatters consecutive indices over the combinations (see Signer.path): a prime far above any factor of
# their count.
SCATTER = 7919


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


class Signer:
    def __init__(self, key_hex: str, salt_hex: str, origin: str, samples=None, largest=1200):
        self.samples = samples or SAMPLES
        self.sizes = range(SMALLEST, largest + 1, SIZE_STEP)
        self.key = bytes.fromhex(key_hex)
        self.salt = bytes.fromhex(salt_hex)
        self.origin = origin.rstrip("/")

    def path(self, index: int) -> str:
        """The index-th of the distinct processing URLs, scattered over samples, formats and sizes (a
        multiplication modulo their count, by a prime that divides none of its factors, is a bijection):
        any run of consecutive indices costs about the same, whatever the first."""
        count = len(self.samples) * len(FORMATS) * len(self.sizes) * len(self.sizes)
        rest = (index % count) * SCATTER % count
        sample = self.samples[rest % len(self.samples)]
        rest //= len(self.samples)
        fmt = FORMATS[rest % len(FORMATS)]
        rest //= len(FORMATS)
        width = self.sizes[rest % len(self.sizes)]
        height = self.sizes[(rest // len(self.sizes)) % len(self.sizes)]
        tail = f"/rs:fill:{width}:{height}:1/{b64url((self.origin + '/' + sample).encode())}.{fmt}"
        signature = hmac.new(self.key, self.salt + tail.encode(), hashlib.sha256).digest()
        return "/" + b64url(signature) + tail


class Client:
    """One keep-alive connection, reopened after any failure."""

    def __init__(self, base: str, timeout: float):
        parts = urllib.parse.urlsplit(base)
        self.host, self.port, self.timeout = parts.hostname, parts.port or 80, timeout
        self.connection = None

    def get(self, path: str):
        """(status, headers, body) or raises: a connection error, reset or timeout."""
        if self.connection is None:
            self.connection = http.client.HTTPConnection(self.host, self.port, timeout=self.timeout)
        try:
            self.connection.request("GET", path)
            response = self.connection.getresponse()
            body = response.read()
            if response.will_close:
                self.close()
            return response.status, response, body
        except Exception:
            self.close()
            raise

    def close(self):
        if self.connection is not None:
            self.connection.close()
            self.connection = None


def fetch(arguments):
    paths = [line.strip() for line in open(arguments.list) if line.strip()]
    results = [None] * len(paths)
    lock = threading.Lock()
    indices = iter(range(len(paths)))

    def worker():
        client = Client(arguments.base, arguments.timeout)
        while True:
            with lock:
                index = next(indices, None)
            if index is None:
                break
            try:
                status, response, body = client.get(paths[index])
                etag = response.getheader("ETag") or "-"
                results[index] = f"{paths[index]} {status} {etag} {hashlib.sha256(body).hexdigest()} {len(body)}"
            except Exception as error:
                results[index] = f"{paths[index]} error:{type(error).__name__} - - 0"
        client.close()

    threads = [threading.Thread(target=worker) for _ in range(arguments.concurrency)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    print("\n".join(results))


def load(arguments):
    signer = Signer(arguments.key, arguments.salt, arguments.origin, arguments.samples, arguments.largest)
    hot = [signer.path(index) for index in range(arguments.hot)]
    fresh_counter = itertools.count(arguments.first_fresh)
    lock = threading.Lock()
    started = time.monotonic()
    deadline = started + arguments.seconds
    records = []  # (seconds since start, outcome, latency)

    def worker(number):
        client = Client(arguments.base, arguments.timeout)
        request = 0
        while time.monotonic() < deadline:
            request += 1
            # A fixed pattern per thread: every 1/fresh-th request is a new URL.
            if arguments.fresh > 0 and request % max(1, round(1 / arguments.fresh)) == 0:
                with lock:
                    path = signer.path(next(fresh_counter))
            else:
                path = hot[(number * 7919 + request) % len(hot)]
            sent = time.monotonic()
            try:
                status, _, _ = client.get(path)
                outcome = str(status)
            except Exception as error:
                outcome = "error:" + type(error).__name__
            with lock:
                records.append((sent - started, outcome, time.monotonic() - sent))
        client.close()

    threads = [threading.Thread(target=worker, args=(number,)) for number in range(arguments.concurrency)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    elapsed = time.monotonic() - started
    outcomes = {}
    for _, outcome, _ in records:
        outcomes[outcome] = outcomes.get(outcome, 0) + 1
    latencies = sorted(latency for _, outcome, latency in records if outcome == "200")
    failures = [(round(at, 2), outcome) for at, outcome, _ in records if outcome != "200"]

    def quantile(q):
        return round(latencies[min(len(latencies) - 1, int(q * len(latencies)))] * 1000, 1) if latencies else None

    # Answers per second of the run, by the second each request was sent in.
    per_second = [0] * (int(arguments.seconds) + 1)
    for at, _, _ in records:
        per_second[min(int(at), len(per_second) - 1)] += 1

    print(json.dumps({
        "requests": len(records), "ok": outcomes.get("200", 0), "failed": len(records) - outcomes.get("200", 0),
        "outcomes": outcomes, "rate": round(len(records) / elapsed, 1),
        "p50_ms": quantile(0.5), "p99_ms": quantile(0.99), "max_ms": quantile(1.0),
        "per_second": per_second[:int(arguments.seconds)], "first_failures": failures[:10],
    }))


def urls(arguments):
    signer = Signer(arguments.key, arguments.salt, arguments.origin, arguments.samples, arguments.largest)
    for index in range(arguments.first, arguments.first + arguments.count):
        print(signer.path(index))


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    commands = parser.add_subparsers(dest="command", required=True)
    for name in ("fetch", "load", "urls"):
        command = commands.add_parser(name)
        if name != "urls":
            command.add_argument("--base", required=True, help="http://host:port of a node or the balancer")
            command.add_argument("--concurrency", type=int, default=8)
            command.add_argument("--timeout", type=float, default=15.0, help="seconds per request")
        if name != "fetch":
            command.add_argument("--key", required=True)
            command.add_argument("--salt", required=True)
            command.add_argument("--origin", required=True, help="http://host:port of the sample origin")
            command.add_argument("--samples", type=lambda text: text.split(","),
                                 help="comma list of file names on the origin (default: the stills of Examples/Resources)")
            command.add_argument("--largest", type=int, default=1200, help="largest output width and height")
    commands.choices["fetch"].add_argument("--list", required=True, help="file of paths")
    commands.choices["load"].add_argument("--seconds", type=float, required=True)
    commands.choices["load"].add_argument("--fresh", type=float, default=0.5, help="share of new URLs")
    commands.choices["load"].add_argument("--hot", type=int, default=40, help="size of the repeated set")
    commands.choices["load"].add_argument("--first-fresh", type=int, default=100_000,
                                          help="index of the first new URL (distinct per run)")
    commands.choices["urls"].add_argument("--count", type=int, required=True)
    commands.choices["urls"].add_argument("--first", type=int, default=0)
    arguments = parser.parse_args()
    {"fetch": fetch, "load": load, "urls": urls}[arguments.command](arguments)


if __name__ == "__main__":
    sys.exit(main())
