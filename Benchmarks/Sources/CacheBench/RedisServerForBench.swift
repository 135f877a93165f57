import Foundation
import Glibc

/// A redis-server for the Redis benchmarks: a free loopback port, data in `directory`, persistence off.
/// Stopped with SIGTERM by `stop()`.
final class RedisServerForBench {
    let port: Int
    private var pid: pid_t = 0

    init(directory: URL) throws {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        port = try Self.freeLoopbackPort()
        let server = CPUPinning.command("/usr/bin/redis-server", [
            "--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--dir", directory.path,
            "--logfile", directory.appendingPathComponent("redis.log").path], cpu: CPUPinning.serverCPU)
        pid = try spawn(server.path, server.arguments)
    }

    func stop() {
        guard pid != 0 else { return }
        kill(pid, SIGTERM)
        var status: Int32 = 0
        while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
        pid = 0
    }

    /// A port nothing listens on right now: bind port 0, read the port, close.
    static func freeLoopbackPort() throws -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0 }
        }
        guard bound else { throw BenchError.noFreePort }
        return Int(UInt16(bigEndian: address.sin_port))
    }
}

enum BenchError: Error {
    case noFreePort
    case cannotSpawn(String)
    case redisDidNotStart
    case unexpectedOutput(String)
}

/// Starts `path` with every signal unblocked and at its default action, returning its pid.
func spawn(_ path: String, _ arguments: [String], stdout: Int32? = nil) throws -> pid_t {
    var attributes = posix_spawnattr_t()
    posix_spawnattr_init(&attributes)
    defer { posix_spawnattr_destroy(&attributes) }
    var empty = sigset_t()
    sigemptyset(&empty)
    var all = sigset_t()
    sigfillset(&all)
    posix_spawnattr_setsigmask(&attributes, &empty)
    posix_spawnattr_setsigdefault(&attributes, &all)
    posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    if let stdout { posix_spawn_file_actions_adddup2(&actions, stdout, 1) }
    // The C strings are owned here: duplicated for the call, freed after it.
    let argv: [UnsafeMutablePointer<CChar>?] = ([path] + arguments).map { strdup($0) } + [nil]
    defer { argv.forEach { free($0) } }
    var pid: pid_t = 0
    guard posix_spawn(&pid, path, &actions, &attributes, argv, environ) == 0 else { throw BenchError.cannotSpawn(path) }
    return pid
}

/// Runs `path` to completion and returns what it printed.
func output(of path: String, _ arguments: [String]) throws -> String {
    var pipeEnds: [Int32] = [0, 0]
    guard pipe(&pipeEnds) == 0 else { throw BenchError.cannotSpawn(path) }
    let pid = try spawn(path, arguments, stdout: pipeEnds[1])
    close(pipeEnds[1])
    let text = FileHandle(fileDescriptor: pipeEnds[0], closeOnDealloc: true).readDataToEndOfFile()
    var status: Int32 = 0
    while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
    return String(decoding: text, as: UTF8.self)
}
