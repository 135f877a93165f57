"""Processing URLs (signed as imgproxy signs them) and a minimal HTTP/1.1 client on asyncio streams."""
import asyncio
import base64
import hashlib
import hmac
import os

from catalogue import (FIT_WIDTHS, FORMAT_NAMES, GOOD_SOURCES, HOSTILE_FILE_VARIANTS, OUTPUT_FORMATS,
                       canary_spellings)
from images import hostile_file_name
from settings import SOURCE_VERSIONS, URLS_PER_ANSWER


class Signer:
    """A random key and salt for one run; `path` signs a processing path with them."""

    def __init__(self):
        self.key = os.urandom(32)
        self.salt = os.urandom(16)

    def path(self, options, source, ext):
        """imgproxy's signed path: base64url(HMAC-SHA256(key, salt + path)) without padding, over the path
        with the source URL in base64url."""
        encoded = base64.urlsafe_b64encode(source.encode()).rstrip(b"=").decode()
        tail = "/" + (options + "/" if options else "") + encoded + ("." + ext if ext else "")
        digest = hmac.new(self.key, self.salt + tail.encode(), hashlib.sha256).digest()
        return "/" + base64.urlsafe_b64encode(digest).rstrip(b"=").decode() + tail


def good_url_pools(signer, good_port, rng):
    """Every (source, fit width, format) with an exact answer, each under URLS_PER_ANSWER spellings of its source
    (the same bytes), shuffled, as (path, (format, width, height)): a few for the warm-up, and a third each for
    phases (a) and (b), so both start with a cold result cache and neither runs out of new URLs on 2 cores."""
    combos = []
    for name, _, width, height, step in GOOD_SOURCES:
        for fit in FIT_WIDTHS:
            if fit % step == 0 and fit <= width:
                for ext in OUTPUT_FORMATS:
                    combos += [(name, fit, fit * height // width, ext, version)
                               for version in rng.sample(range(SOURCE_VERSIONS), URLS_PER_ANSWER)]
    rng.shuffle(combos)
    urls = []
    for name, fit_width, fit_height, ext, version in combos:
        source = f"http://127.0.0.1:{good_port}/{name}?v={version}"
        # A box four times as tall as wide: every source fits by its width.
        urls.append((signer.path(f"rs:fit:{fit_width}:{4 * fit_width}", source, ext),
                     (FORMAT_NAMES[ext], fit_width, fit_height)))
    third = len(urls) // 3
    warmup = urls[2 * third:][:40]
    return warmup, urls[:third], urls[third:2 * third]


def hostile_path(signer, ports, rng):
    """One hostile request: (kind, processing path), with a fresh query string so nothing coalesces."""
    hostile, good, canary = f"http://127.0.0.1:{ports['hostile']}", f"http://127.0.0.1:{ports['good']}", ports["canary"]
    n = rng.randrange(1 << 30)
    variant = n % HOSTILE_FILE_VARIANTS
    sources = {
        "bomb": lambda: f"{hostile}/file/{'bomb.png' if n % 2 else 'bomb64.png'}?n={n}",
        "truncated": lambda: f"{hostile}/file/{hostile_file_name('trunc', variant)}?n={n}",
        "bitflip": lambda: f"{hostile}/file/{hostile_file_name('flip', variant)}?n={n}",
        "stall": lambda: f"{hostile}/stall?n={n}",
        "stall-body": lambda: f"{hostile}/stall-body?n={n}",
        "drip": lambda: f"{hostile}/drip?n={n}",
        "lie-long": lambda: f"{hostile}/lie-long?n={n}",
        "lie-short": lambda: f"{hostile}/lie-short?n={n}",
        "redirect-loop": lambda: f"{hostile}/loop/0?n={n}",
        "redirect-canary": lambda: f"{hostile}/to-canary/{n % 97}?n={n}",
        "ssrf": lambda: rng.choice(canary_spellings(canary, ports["good"])),
        "smuggle": lambda: f"{good}/overflow/smuggle?n={n}",
        "garbage-after-body": lambda: f"{good}/overflow/garbage?n={n}",
    }
    kind = rng.choice(sorted(sources))
    return kind, signer.path(rng.choice(["", "rs:fit:300:300"]), sources[kind](), rng.choice(OUTPUT_FORMATS))


class Connection:
    """A keep-alive HTTP/1.1 connection to the server: GET, with Content-Length or chunked answers."""

    def __init__(self, port):
        self.port = port
        self.reader = self.writer = None

    async def get(self, path):
        """(status, lowercased headers, body). A kept-alive connection the server closed in between is replaced
        once."""
        for attempt in (0, 1):
            fresh = self.writer is None
            if fresh:
                self.reader, self.writer = await asyncio.open_connection("127.0.0.1", self.port, limit=1 << 20)
            try:
                self.writer.write(f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".encode())
                response_head = await self.reader.readuntil(b"\r\n\r\n")
                break
            except (ConnectionError, asyncio.IncompleteReadError):
                self.close()
                if fresh or attempt:
                    raise
        lines = response_head.decode("latin-1").split("\r\n")
        status = int(lines[0].split(" ")[1])
        headers = {}
        for line in lines[1:]:
            if ":" in line:
                name, value = line.split(":", 1)
                headers[name.strip().lower()] = value.strip()
        if "content-length" in headers:
            body = await self.reader.readexactly(int(headers["content-length"]))
        elif headers.get("transfer-encoding", "").lower() == "chunked":
            body = b""
            while True:
                size = int((await self.reader.readuntil(b"\r\n")).split(b";")[0], 16)
                body += (await self.reader.readexactly(size + 2))[:-2]
                if size == 0:
                    break
        else:
            body = await self.reader.read()
            self.close()
        if headers.get("connection", "").lower() == "close":
            self.close()
        return status, headers, body

    def close(self):
        if self.writer is not None:
            self.writer.close()
        self.reader = self.writer = None
