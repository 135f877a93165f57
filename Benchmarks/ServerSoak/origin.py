"""The origin process: a good origin, a probe origin, a hostile origin and a canary, each on a loopback port of its own.

    python origin.py IMAGES_DIR [OVERFLOW_DELAY_MS]
    # prints {"good": PORT, "probe": PORT, "hostile": PORT, "canary": PORT} once listening

The good and probe origins serve the good sources (any query string) and, under /overflow/, answers followed by
bytes past their Content-Length on the kept-alive connection: a whole second response with the smuggled bar, or
garbage. The server's loader pools connections per origin, so only bytes waiting on a good origin's connection
could answer a good request: that is why they are on good origins.
- The good origin sends them with the answer, in one write (a short Content-Length): libcurl reads them with the
  body and drops the connection itself. With OVERFLOW_DELAY_MS it sends them that long after the answer instead:
  a request sent on the connection meanwhile gets them as its answer, which HTTP/1.1 cannot tell from the origin
  answering that request so (see Benchmarks/README.md#server-soak).
- The probe origin sends them in a write of their own 100 ms after the answer, so they arrive once libcurl has
  read the body and pooled the connection: the stale bytes the loader must refuse. The soak's poisoning probe
  asks it for one overflow answer at a time, waits until the bytes wait unread in the loader's socket, then asks
  for a good source there.
The hostile origin serves every other attack (see `hostile`). The canary records every connection; nothing may
ever reach it. GET /__stats on the good origin answers the counts and the canary's contacts as JSON.
"""
import asyncio
import collections
import json
import os
import sys

from catalogue import BIG_SOURCE, GOOD_SOURCES, MIME, SMUGGLED, canary_spellings, extension

DRIP_SECONDS_PER_BYTE = 1
# The probe origin's bytes past a body follow the answer this much later, so that the loader has read the body
# before they come (sent at once, they often arrive before it reads, and libcurl then drops the connection itself,
# which tests nothing). No request can reach that origin meanwhile: the probe asks it one thing at a time.
PROBE_EXTRA_DELAY_SECONDS = 0.1


def head(status, length, content_type="image/jpeg", extra=""):
    reason = {200: "OK", 302: "Found", 404: "Not Found"}.get(status, "Status")
    return (f"HTTP/1.1 {status} {reason}\r\nContent-Type: {content_type}\r\nContent-Length: {length}\r\n"
            f"{extra}\r\n").encode()


def answer(data, content_type):
    return head(200, len(data), content_type) + data


class Origin:
    def __init__(self, directory, overflow_delay):
        self.overflow_delay = overflow_delay
        def read(*parts):
            with open(os.path.join(directory, *parts), "rb") as f:
                return f.read()
        self.files = {name: read(name) for name in [s[0] for s in GOOD_SOURCES] + [BIG_SOURCE[0]]}
        self.smuggled = read(SMUGGLED[0])
        self.hostile_files = {name: read("hostile", name) for name in os.listdir(os.path.join(directory, "hostile"))}
        self.jpeg = self.files["p43.jpg"]
        self.stats = collections.Counter()
        self.canary_contacts = []
        self.ports = {}

    async def serve(self, reader, writer, handler):
        """Answers requests on one connection (keep-alive) until the handler or the peer ends it."""
        try:
            while True:
                request = await reader.readuntil(b"\r\n\r\n")
                path = request.split(b"\r\n", 1)[0].split(b" ")[1].decode("latin-1").split("?", 1)[0]
                keep = await handler(path, reader, writer)
                await writer.drain()
                if not keep:
                    break
        except (asyncio.IncompleteReadError, asyncio.LimitOverrunError, ConnectionError, IndexError):
            pass
        finally:
            writer.close()

    @staticmethod
    async def until_peer_closes(reader):
        try:
            while await reader.read(65536):
                pass
        except ConnectionError:
            pass

    async def good(self, path, reader, writer, separate_write=False):
        name = path.lstrip("/")
        if path == "/__stats":
            writer.write(answer(json.dumps({"counts": self.stats, "canary": self.canary_contacts}).encode(),
                                "application/json"))
        elif name in self.files:
            self.stats["good:" + name] += 1
            writer.write(answer(self.files[name], MIME[extension(name)]))
        elif path.startswith("/overflow/"):
            # A valid answer and bytes past its Content-Length (see the module's comment for when they go out).
            origin = "probe" if separate_write else "good"
            if path.startswith("/overflow/smuggle"):
                self.stats[f"overflow:{origin}:smuggle"] += 1
                extra = answer(self.smuggled, "image/png")
            else:
                self.stats[f"overflow:{origin}:garbage"] += 1
                extra = b"\x00\x17garbage after the body\r\n\r\n" + bytes(range(256))
            if separate_write or self.overflow_delay:
                writer.write(answer(self.smuggled, "image/png"))
                await writer.drain()
                await asyncio.sleep(PROBE_EXTRA_DELAY_SECONDS if separate_write else self.overflow_delay)
                writer.write(extra)
            else:
                writer.write(answer(self.smuggled, "image/png") + extra)
        else:
            self.stats["good:404"] += 1
            writer.write(head(404, 0, "text/plain"))
        return True

    async def hostile(self, path, reader, writer):
        kind = path.strip("/").split("/")[0]
        self.stats["hostile:" + kind] += 1
        if kind == "file":                    # pixel bombs, truncated and bit-flipped files
            name = path.split("/")[-1]
            writer.write(answer(self.hostile_files[name], MIME[extension(name)]))
            return True
        if kind == "stall":                   # reads the request, never answers
            await self.until_peer_closes(reader)
            return False
        if kind == "stall-body":              # a head and 2 KB of the body, then nothing
            writer.write(head(200, len(self.jpeg)) + self.jpeg[:2000])
            await writer.drain()
            await self.until_peer_closes(reader)
            return False
        if kind == "drip":                    # one byte a second
            writer.write(head(200, len(self.jpeg)))
            for byte in self.jpeg:
                writer.write(bytes([byte]))
                await writer.drain()
                await asyncio.sleep(DRIP_SECONDS_PER_BYTE)
            return False
        if kind == "lie-long":                # Content-Length twice the body, then the connection closes
            writer.write(head(200, 2 * len(self.jpeg)) + self.jpeg)
            return False
        if kind == "lie-short":               # Content-Length half the body: the rest waits on the connection
            writer.write(head(200, len(self.jpeg) // 2) + self.jpeg)
            return True
        if kind == "loop":                    # an endless redirect chain
            step = int(path.split("/")[-1]) + 1
            location = f"http://127.0.0.1:{self.ports['hostile']}/loop/{step}"
            writer.write(head(302, 0, "text/plain", f"Location: {location}\r\n"))
            return True
        if kind == "to-canary":               # a redirect out of the allow-list, to the canary
            spellings = canary_spellings(self.ports["canary"], self.ports["good"])
            location = spellings[int(path.split("/")[-1]) % len(spellings)]
            writer.write(head(302, 0, "text/plain", f"Location: {location}\r\n"))
            return True
        writer.write(head(404, 0, "text/plain"))
        return True

    async def canary(self, reader, writer):
        try:
            first = await asyncio.wait_for(reader.read(200), 1)
        except (asyncio.TimeoutError, ConnectionError):
            first = b""
        self.canary_contacts.append({"peer": str(writer.get_extra_info("peername")),
                                     "first_bytes": first.decode("latin-1")})
        writer.close()

    async def run(self):
        good = await asyncio.start_server(lambda r, w: self.serve(r, w, self.good), "127.0.0.1", 0, backlog=512)
        probe = await asyncio.start_server(
            lambda r, w: self.serve(r, w, lambda *request: self.good(*request, separate_write=True)), "127.0.0.1", 0)
        hostile = await asyncio.start_server(lambda r, w: self.serve(r, w, self.hostile), "127.0.0.1", 0, backlog=512)
        canary = await asyncio.start_server(self.canary, "127.0.0.1", 0)
        servers = [good, probe, hostile, canary]
        self.ports = {name: server.sockets[0].getsockname()[1]
                      for name, server in zip(["good", "probe", "hostile", "canary"], servers)}
        try:    # the canary on IPv6 loopback too, on the same port, when the machine has it
            servers.append(await asyncio.start_server(self.canary, "::1", self.ports["canary"]))
        except OSError:
            pass
        print(json.dumps(self.ports), flush=True)
        await asyncio.Event().wait()


if __name__ == "__main__":
    asyncio.run(Origin(sys.argv[1], float(sys.argv[2]) / 1000 if len(sys.argv) > 2 else 0).run())
