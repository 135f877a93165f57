"""The soak's clients: good closed-loop workers whose every answer is checked, hostile requests dispatched to
make a share of all requests, slow clients (slowloris, idle, slow readers) and clients that drop requests."""
import asyncio
import collections
import hashlib
import io
import socket
import time

from catalogue import FIT_WIDTHS, FORMAT_NAMES, MIME
from measure import unread_bytes_from
from settings import (CLOSE_BOUND_SECONDS, DROPPERS_PER_SECOND, HANG_SECONDS, HOSTILE_IN_FLIGHT_CAP, HOT_SHARE,
                      IDLE_CLIENTS, SETTLE_SECONDS, SLOW_READER_BYTES_PER_SECOND, SLOW_READER_RECEIVE_BUFFER,
                      SLOW_READERS, SLOWLORIS_BYTES_PER_SECOND, SLOWLORIS_CLIENTS)
from traffic import Connection, hostile_path

MIME_BY_FORMAT = {name: MIME[ext] for ext, name in FORMAT_NAMES.items()}
NETWORK_ERRORS = (OSError, asyncio.IncompleteReadError, asyncio.LimitOverrunError, ValueError)
# The longest the probe waits for the bytes past an overflow answer to reach the server's socket: they follow the
# answer 100 ms later (origin.py), so this bounds a broken run, not a guess at how long they take.
PROBE_WAIT_SECONDS = 5


class Clients:
    def __init__(self, server_port, ports, signer, rng, big_path):
        self.server_port = server_port
        self.ports = ports
        self.signer = signer
        self.rng = rng
        self.big_path = big_path               # the big noise PNG, full size: a ~6.8 MB answer
        self.verified = collections.defaultdict(set)   # url -> sha256 of its answers decoded and checked
        self.wrong = []                        # (phase, url, what)
        self.unexpected_5xx = collections.Counter()
        self.hangs = []                        # (phase, kind, url)
        self.slow = []                         # one record per slow client
        self.droppers = collections.Counter()
        self.probes = collections.Counter()
        self.phase = None
        self.running = False

    # ---- good traffic -------------------------------------------------------------------------------------------
    def check(self, url, expected, status, headers, body):
        """Whether a good answer is a success. A 200 whose image is not `expected` (format, width, height) is a
        wrong image. An answer byte-identical to one of this URL's already checked is right; others are decoded
        whole (Pillow) and checked."""
        if status != 200:
            if status >= 500:
                self.unexpected_5xx[status] += 1
            return False
        digest = hashlib.sha256(body).digest()
        if digest in self.verified[url]:
            return True
        from PIL import Image
        try:
            image = Image.open(io.BytesIO(body))
            image.load()
            got = (image.format, image.width, image.height)
        except Exception as error:   # noqa: BLE001 - whatever Pillow cannot decode is a wrong image
            got = ("undecodable: " + str(error)[:80], 0, 0)
        content_type = headers.get("content-type", "")
        if got != expected or content_type != MIME_BY_FORMAT[expected[0]]:
            self.wrong.append((self.phase.name, url, f"expected {expected[0]} {expected[1]}x{expected[2]}, got "
                                                     f"{got[0]} {got[1]}x{got[2]} ({content_type}, {len(body)} bytes)"))
            return False
        self.verified[url].add(digest)
        return True

    async def good_worker(self, pool, hot):
        """Asks for good URLs one after another on one keep-alive connection while the phase runs."""
        connection = Connection(self.server_port)
        while self.running:
            url, expected = self.rng.choice(hot) if self.rng.random() < HOT_SHARE else self.rng.choice(pool)
            phase = self.phase
            started = time.monotonic()
            status, headers, body = None, {}, b""
            try:
                status, headers, body = await asyncio.wait_for(connection.get(url), HANG_SECONDS)
            except asyncio.TimeoutError:     # before NETWORK_ERRORS: TimeoutError is an OSError
                self.hangs.append((phase.name, "good", url))
                connection.close()
                status = "no answer"
            except NETWORK_ERRORS as error:
                connection.close()
                status = f"error: {type(error).__name__}"
            phase.good += 1
            phase.latencies.append(time.monotonic() - started)
            phase.statuses[status] += 1
            if isinstance(status, int) and self.check(url, expected, status, headers, body):
                phase.ok += 1
        connection.close()

    # ---- hostile requests ---------------------------------------------------------------------------------------
    async def hostile_request(self, phase):
        kind, path = hostile_path(self.signer, self.ports, self.rng)
        started = time.monotonic()
        connection = Connection(self.server_port)
        try:
            status, _, _ = await asyncio.wait_for(connection.get(path), HANG_SECONDS)
        except asyncio.TimeoutError:
            self.hangs.append((phase.name, kind, path))
            status = "no answer"
        except NETWORK_ERRORS as error:
            status = f"error: {type(error).__name__}"
        finally:
            connection.close()
        phase.hostile[kind].append((status, time.monotonic() - started))

    async def hostile_dispatcher(self, phase, share):
        """Starts hostile requests, each on a connection of its own, so that they are `share` of all requests
        sent in the phase (at most HOSTILE_IN_FLIGHT_CAP open at once)."""
        in_flight = set()
        sent = 0
        while self.running:
            while sent < share / (1 - share) * phase.good and len(in_flight) < HOSTILE_IN_FLIGHT_CAP:
                task = asyncio.ensure_future(self.hostile_request(phase))
                in_flight.add(task)
                task.add_done_callback(in_flight.discard)
                sent += 1
            await asyncio.sleep(0.005)
        await asyncio.gather(*in_flight, return_exceptions=True)

    # ---- poisoning probe ------------------------------------------------------------------------------------------
    async def poisoning_probe(self, phase):
        """One at a time: an overflow answer from the probe origin (bytes past its body follow in a write of their
        own), then, once those bytes wait unread in the server's pooled connection to that origin (read from
        /proc/net/tcp, at most PROBE_WAIT_SECONDS), a good source from the same origin that nothing has asked
        before. Its answer must be its own image: a poisoned one is the 12:1 bar (or a 502 for garbage)."""
        origin = f"http://127.0.0.1:{self.ports['probe']}"
        widths = [w for w in FIT_WIDTHS if w % 4 == 0]           # p43.jpg is 4:3
        number = 0
        while self.running:
            overflow = "smuggle" if number % 2 == 0 else "garbage"
            kind = f"overflow probe ({overflow})"
            started = time.monotonic()
            connection = Connection(self.server_port)
            try:
                status, _, _ = await asyncio.wait_for(
                    connection.get(self.signer.path("", f"{origin}/overflow/{overflow}?n={number}", "png")), HANG_SECONDS)
            except asyncio.TimeoutError:
                self.hangs.append((phase.name, kind, origin))
                status = "no answer"
            except NETWORK_ERRORS as error:
                status = f"error: {type(error).__name__}"
            phase.hostile[kind].append((status, time.monotonic() - started))
            deadline = time.monotonic() + PROBE_WAIT_SECONDS
            while unread_bytes_from(self.ports["probe"]) == 0 and time.monotonic() < deadline:
                await asyncio.sleep(0.01)
            waiting = unread_bytes_from(self.ports["probe"]) > 0
            fit = widths[number % len(widths)]
            url = self.signer.path(f"rs:fit:{fit}:{4 * fit}", f"{origin}/p43.jpg?v=probe{number}", "jpg")
            try:
                status, headers, body = await asyncio.wait_for(connection.get(url), HANG_SECONDS)
                right = self.check(url, ("JPEG", fit, fit * 3 // 4), status, headers, body)
            except asyncio.TimeoutError:
                self.hangs.append((phase.name, "probe's good request", url))
                status, right = "no answer", False
            except NETWORK_ERRORS as error:
                status, right = f"error: {type(error).__name__}", False
            finally:
                connection.close()
            self.probes["probes"] += 1
            self.probes["bytes waiting before the good request"] += waiting
            self.probes["right image"] += right
            if not right:
                self.probes[f"not the right image ({status})"] += 1
            number += 1

    # ---- slow clients -------------------------------------------------------------------------------------------
    async def raw_socket(self, receive_buffer=None):
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        if receive_buffer:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, receive_buffer)
        sock.setblocking(False)
        try:
            await asyncio.get_running_loop().sock_connect(sock, ("127.0.0.1", self.server_port))
        except OSError:
            sock.close()
            raise
        return sock

    async def slow_client(self, kind):
        """One slow client. Its record's `released` (set by `note_released` from /proc) says when the server let
        go of the connection's socket; `eof` when this side saw the connection end."""
        loop = asyncio.get_running_loop()
        record = {"kind": kind, "started": time.monotonic(), "released": None, "seen": False, "eof": None, "bytes": 0}
        try:
            sock = await self.raw_socket(SLOW_READER_RECEIVE_BUFFER if kind == "slow reader" else None)
        except OSError:
            return
        record["port"] = sock.getsockname()[1]
        self.slow.append(record)
        # Past the close bound and phase (c): the report has been written by then.
        limit = record["started"] + CLOSE_BOUND_SECONDS + SETTLE_SECONDS + HANG_SECONDS
        try:
            if kind == "slowloris":
                # A head that never ends, SLOWLORIS_BYTES_PER_SECOND at a time.
                head = b"GET /health HTTP/1.1\r\nHost: x\r\nX-Padding: " + b"a" * 100_000
                for offset in range(0, len(head), SLOWLORIS_BYTES_PER_SECOND):
                    await loop.sock_sendall(sock, head[offset:offset + SLOWLORIS_BYTES_PER_SECOND])
                    if await self.closed_within(sock, 1.0) or time.monotonic() > limit:
                        break
            elif kind == "idle after a request":
                await loop.sock_sendall(sock, b"GET /health HTTP/1.1\r\nHost: x\r\n\r\n")
                await self.closed_within(sock, limit - time.monotonic())
            elif kind == "idle":
                await self.closed_within(sock, limit - time.monotonic())
            elif kind == "slow reader":
                await loop.sock_sendall(sock, f"GET {self.big_path} HTTP/1.1\r\nHost: x\r\n\r\n".encode())
                while time.monotonic() < limit:
                    await asyncio.sleep(1)
                    try:
                        data = sock.recv(SLOW_READER_BYTES_PER_SECOND)
                    except BlockingIOError:
                        continue
                    if not data:
                        break
                    record["bytes"] += len(data)
        except OSError:
            pass
        finally:
            record["eof"] = record["eof"] or time.monotonic()
            sock.close()

    async def closed_within(self, sock, seconds):
        """Reads (and drops) what arrives for `seconds`; True once the server closed the connection."""
        loop = asyncio.get_running_loop()
        deadline = time.monotonic() + max(0.0, seconds)
        while time.monotonic() < deadline:
            try:
                data = await asyncio.wait_for(loop.sock_recv(sock, 65536), deadline - time.monotonic())
            except asyncio.TimeoutError:
                return False
            except OSError:
                return True
            if not data:
                return True
        return False

    def note_released(self, held_ports, now):
        """A slow client's socket is released once the server held it and no longer does (or it ended before
        a sample saw it held); one not yet accepted is not."""
        for record in self.slow:
            held = record.get("port") in held_ports
            record["seen"] = record["seen"] or held
            if record["released"] is None and not held and (record["seen"] or record["eof"] is not None):
                record["released"] = now

    async def dropper(self, variant, new_url):
        loop = asyncio.get_running_loop()
        try:
            sock = await self.raw_socket()
            try:
                if variant == "request then close":      # a URL nobody asked: real work, abandoned
                    await loop.sock_sendall(sock, f"GET {new_url} HTTP/1.1\r\nHost: x\r\n\r\n".encode())
                    await asyncio.sleep(0.01)
                elif variant == "half a head then close":
                    await loop.sock_sendall(sock, f"GET {new_url} HTTP/1.1\r\nHo".encode())
                else:                                    # 64 KB of the big answer, then close
                    await loop.sock_sendall(sock, f"GET {self.big_path} HTTP/1.1\r\nHost: x\r\n\r\n".encode())
                    received = 0
                    while received < 65536:
                        data = await asyncio.wait_for(loop.sock_recv(sock, 65536), HANG_SECONDS)
                        if not data:
                            break
                        received += len(data)
            finally:
                sock.close()
            self.droppers[variant] += 1
        except (OSError, asyncio.TimeoutError):
            self.droppers[variant + " (failed)"] += 1

    async def slow_clients(self, until, new_urls):
        """Keeps SLOWLORIS_CLIENTS, IDLE_CLIENTS and SLOW_READERS open and starts DROPPERS_PER_SECOND until
        `until`; returns their tasks (the caller cancels them once the report is done)."""
        tasks = []
        kinds = [("slowloris", SLOWLORIS_CLIENTS), ("idle", IDLE_CLIENTS // 2),
                 ("idle after a request", IDLE_CLIENTS - IDLE_CLIENTS // 2), ("slow reader", SLOW_READERS)]
        variants = ["request then close", "half a head then close", "read part of a big answer then close"]
        tick = 0
        while self.running and time.monotonic() < until:
            for kind, target in kinds:
                open_now = sum(1 for r in self.slow if r["kind"] == kind and r["eof"] is None)
                tasks += [asyncio.ensure_future(self.slow_client(kind)) for _ in range(target - open_now)]
            for _ in range(DROPPERS_PER_SECOND):
                tasks.append(asyncio.ensure_future(self.dropper(variants[tick % len(variants)], new_urls.pop())))
                tick += 1
            await asyncio.sleep(1)
        return tasks
