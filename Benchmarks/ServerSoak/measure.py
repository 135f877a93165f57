"""What the soak measures: latencies per phase, and the server process's RSS, fds and sockets from /proc."""
import collections
import os
import time


def percentile(values, fraction):
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


class Phase:
    """The good requests of one phase (count, successes, latencies, statuses) and its hostile ones by kind."""

    def __init__(self, name):
        self.name = name
        self.latencies = []
        self.good = 0
        self.ok = 0
        self.statuses = collections.Counter()
        self.started = self.ended = None
        self.hostile = collections.defaultdict(list)      # kind -> [(status, seconds)]


def tcp_rows():
    """(local port, remote port, state, inode) of every TCP socket, from /proc/net/tcp and tcp6."""
    rows = []
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            with open(table) as f:
                lines = f.read().splitlines()[1:]
        except OSError:
            continue
        for line in lines:
            fields = line.split()
            if len(fields) > 9:
                rows.append((int(fields[1].rsplit(":", 1)[1], 16), int(fields[2].rsplit(":", 1)[1], 16),
                             fields[3], int(fields[9])))
    return rows


def unread_bytes_from(port):
    """Bytes received and not yet read by this machine's TCP sockets connected to 127.0.0.1:`port` (the receive
    queues of /proc/net/tcp): how the soak sees bytes an origin sent wait in the server's pooled connection."""
    total = 0
    with open("/proc/net/tcp") as f:
        for line in f.read().splitlines()[1:]:
            fields = line.split()
            if len(fields) > 4 and int(fields[2].rsplit(":", 1)[1], 16) == port:
                total += int(fields[4].split(":")[1], 16)
    return total


def socket_inodes(pid):
    inodes = set()
    for fd in os.listdir(f"/proc/{pid}/fd"):
        try:
            link = os.readlink(f"/proc/{pid}/fd/{fd}")
        except OSError:
            continue
        if link.startswith("socket:["):
            inodes.add(int(link[8:-1]))
    return inodes


class Sampler:
    """RSS, open fds, client-facing and origin-facing sockets of the server, read when asked (every second);
    `held` says which client ports the server holds an fd for, for the slow clients' release times."""

    def __init__(self, pid, server_port, ports):
        self.pid = pid
        self.server_port = server_port
        self.origin_ports = (ports["good"], ports["probe"], ports["hostile"])
        self.samples = []          # (t, phase, rss MB, fds, client sockets, origin sockets)
        self.held = set()
        self.t0 = time.monotonic()

    def read(self, phase):
        try:
            with open(f"/proc/{self.pid}/status") as f:
                rss = next(int(line.split()[1]) for line in f if line.startswith("VmRSS:")) / 1024
            fds = len(os.listdir(f"/proc/{self.pid}/fd"))
            inodes = socket_inodes(self.pid)
        except (OSError, StopIteration):
            return None
        held, origins = set(), 0
        for local, remote, state, inode in tcp_rows():
            if inode not in inodes or state == "0A":    # 0A: the listening socket
                continue
            if local == self.server_port:
                held.add(remote)
            elif remote in self.origin_ports:
                origins += 1
        self.held = held
        sample = (time.monotonic() - self.t0, phase, rss, fds, len(held), origins)
        self.samples.append(sample)
        return sample


def fd_breakdown(pid, server_port, ports):
    """Open fds of `pid` by kind, its TCP sockets by what they face."""
    kinds = collections.Counter()
    by_inode = {inode: (local, remote) for local, remote, _, inode in tcp_rows() if inode}
    for fd in os.listdir(f"/proc/{pid}/fd"):
        try:
            link = os.readlink(f"/proc/{pid}/fd/{fd}")
        except OSError:
            continue
        if link.startswith("socket:["):
            local, remote = by_inode.get(int(link[8:-1]), (None, None))
            if local == server_port:
                kinds["socket: client" if remote else "socket: listening"] += 1
            elif remote == ports["good"]:
                kinds["socket: good origin"] += 1
            elif remote == ports["probe"]:
                kinds["socket: probe origin"] += 1
            elif remote == ports["hostile"]:
                kinds["socket: hostile origin"] += 1
            else:
                kinds["socket: other (unix, socketpair)" if local is None else "socket: other TCP"] += 1
        elif link.startswith("anon_inode:"):
            kinds[link[len("anon_inode:"):].strip("[]")] += 1
        elif link.startswith("pipe:"):
            kinds["pipe"] += 1
        else:
            kinds["file"] += 1
    return kinds


def metric_values(text, name):
    """{labels: value} of one metric in Prometheus text."""
    values = {}
    for line in text.splitlines():
        if line.startswith(name) and not line.startswith("#"):
            key, _, value = line.rpartition(" ")
            try:
                values[key[len(name):]] = float(value)
            except ValueError:
                pass
    return values


def cpu_seconds(pid):
    """User plus system CPU seconds `pid` has used, from /proc/PID/stat."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def memory_rollup(pid):
    """Rss, anonymous and file-backed resident memory of `pid` in MB, from /proc/PID/smaps_rollup."""
    values = {}
    with open(f"/proc/{pid}/smaps_rollup") as f:
        for line in f:
            parts = line.split()
            if len(parts) >= 2 and parts[0].rstrip(":") in ("Rss", "Anonymous", "Pss_File", "Shared_Clean", "Private_Clean"):
                values[parts[0].rstrip(":")] = int(parts[1]) / 1024
    return values


def malloc_stats(pid, log_path):
    """glibc's malloc_stats() of `pid` (gdb calls it in the process, which prints to its stderr: the log), as the
    lines it printed; None when gdb is missing or cannot attach."""
    import shutil
    import subprocess
    if not shutil.which("gdb"):
        return None
    with open(log_path) as f:
        before = len(f.read())
    result = subprocess.run(["gdb", "-p", str(pid), "-batch", "-ex", "call (void)malloc_stats()"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=60)
    time.sleep(0.5)
    with open(log_path) as f:
        printed = f.read()[before:]
    return printed.strip().splitlines() if result.returncode == 0 and printed else None
