import Foundation
import Glibc
import WebImageTestSupport

/// Where the Redis rows run: redis-server on one CPU, the client (our threads or redis-benchmark) on
/// another. Left to the scheduler, two processes ping-ponging over loopback on two cores land together or
/// apart from run to run, and the same client swings by a third; pinned, both clients are measured under
/// the same placement. Without a second CPU or `taskset`, nothing is pinned.
enum CPUPinning {
    static let serverCPU = 0
    static let clientCPU = 1

    static let isAvailable =
        sysconf(Int32(_SC_NPROCESSORS_ONLN)) >= 2
        && FileManager.default.isExecutableFile(atPath: "/usr/bin/taskset")

    /// `path arguments` run through `taskset` on `cpu` when pinning is available.
    static func command(_ path: String, _ arguments: [String], cpu: Int) -> (path: String, arguments: [String]) {
        isAvailable ? ("/usr/bin/taskset", ["-c", String(cpu), path] + arguments) : (path, arguments)
    }

    /// The command prefix that runs a program on `cpu` (`taskset -c cpu`), or none when pinning is not
    /// available: what `RedisServerProcess` starts redis-server under.
    static func launcher(cpu: Int) -> [String] {
        isAvailable ? ["/usr/bin/taskset", "-c", String(cpu)] : []
    }

    /// Runs `body` with every thread of this process (and those it starts) on `cpu`, then gives the
    /// threads back their CPU list. (`taskset -a -p`: Glibc's module has no `sched_setaffinity`.)
    static func onCPU<T>(_ cpu: Int, _ body: () throws -> T) throws -> T {
        guard isAvailable else { return try body() }
        let pid = String(getpid())
        // "pid 123's current affinity list: 0,1"
        let current = try ChildProcess.output(of: "/usr/bin/taskset", ["-c", "-p", pid])
        guard let list = current.split(separator: ":").last?.trimmingCharacters(in: .whitespacesAndNewlines),
            !list.isEmpty
        else { return try body() }
        _ = try ChildProcess.output(of: "/usr/bin/taskset", ["-a", "-c", "-p", String(cpu), pid])
        defer { _ = try? ChildProcess.output(of: "/usr/bin/taskset", ["-a", "-c", "-p", list, pid]) }
        return try body()
    }
}
