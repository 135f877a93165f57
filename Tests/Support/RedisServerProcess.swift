import Foundation
import LoopbackHTTPServer
import WebImageCore

#if canImport(Glibc)
import Glibc
#endif

/// A real `redis-server` (Debian's, which scripts/install-deps.sh installs) on a free loopback port, with
/// its data directory in a temporary folder and persistence off, for the Redis tier's tests, the image
/// server's tests and cache-bench. Stopped (SIGTERM) when released; ``kill()`` ends it abruptly, ``start()``
/// brings it back on the same port.
public final class RedisServerProcess: Sendable {
    /// The port the server listens on, on 127.0.0.1.
    public let port: Int
    /// The server's data directory and log file (`redis.log`).
    public let directory: TemporaryDirectory
    private let extraArguments: [String]
    private let launcher: [String]
    /// Guards the running server's process id (nil when stopped).
    private let process = Locked<pid_t?>(nil)

    /// How long a starting server may take to answer PING on a loaded machine.
    public static let startTimeout: Duration = .seconds(60)
    /// Ports tried before a server that will not start is an error.
    public static let startAttempts = 4
    /// Where Debian installs the server.
    public static let executable = "/usr/bin/redis-server"

    /// What ``init(extraArguments:launcher:)`` and ``start()`` throw.
    public enum Failure: Error {
        /// The server exited or did not answer PING within ``startTimeout`` on this port.
        case didNotStart(port: Int)
    }

    /// Starts a server and waits until it answers. `extraArguments` go after the defaults (`--requirepass`,
    /// `--maxmemory`, ...); `launcher` is a command the server runs under (cache-bench pins it to a CPU
    /// with `["/usr/bin/taskset", "-c", "0"]`).
    public init(extraArguments: [String] = [], launcher: [String] = []) throws {
        directory = try TemporaryDirectory(prefix: "redis")
        self.extraArguments = extraArguments
        self.launcher = launcher
        // A port found free may be taken again (by another test's server or an outgoing connection)
        // before redis binds it: then the server exits at once, and another port is tried.
        var attempt = 0
        while true {
            let candidate = Int(try LoopbackSocket.freePort())
            do {
                let server = try Self.launch(
                    port: candidate, directory: directory, extraArguments: extraArguments,
                    launcher: launcher)
                port = candidate
                process.withLock { $0 = server }
                return
            } catch {
                attempt += 1
                if attempt == Self.startAttempts { throw error }
            }
        }
    }

    deinit { stop() }

    /// `redis://127.0.0.1:<port>`.
    public var url: String { "redis://127.0.0.1:\(port)" }

    /// Starts the server again on its port and waits until it answers PING.
    public func start() throws {
        let server = try Self.launch(
            port: port, directory: directory, extraArguments: extraArguments, launcher: launcher)
        process.withLock { $0 = server }
    }

    /// Spawns a server on `port` and waits until it answers; a server that exits early (its port taken) or
    /// does not answer in time is ended and reported.
    private static func launch(
        port: Int, directory: TemporaryDirectory, extraArguments: [String],
        launcher: [String]
    ) throws -> pid_t {
        let arguments =
            [
                "--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
                "--dir", directory.url.path, "--logfile", directory.file("redis.log").path,
                "--enable-debug-command", "yes",
            ] + extraArguments
        let command = launcher + [executable] + arguments
        let server = try ChildProcess.spawn(command[0], Array(command.dropFirst()))
        let deadline = ContinuousClock.now + startTimeout
        while ContinuousClock.now < deadline {
            if answersLikeRedis(port: port) { return server }
            var status: Int32 = 0
            // its port was taken
            if waitpid(server, &status, WNOHANG) == server { throw Failure.didNotStart(port: port) }
            usleep(20_000)
        }
        Glibc.kill(server, SIGKILL)
        ChildProcess.wait(server)
        throw Failure.didNotStart(port: port)
    }

    /// Whether a Redis server answers PING on `port`: PONG, or an error reply such as NOAUTH (a server with
    /// `--requirepass`). A bare connect would also succeed against another test's listener that took the port.
    private static func answersLikeRedis(port: Int) -> Bool {
        guard let reply = reply(to: "PING", port: port), let first = reply.first else { return false }
        return reply.starts(with: Array("+PONG".utf8)) || first == UInt8(ascii: "-")
    }

    /// The first bytes (up to 64) the server answers to the inline command `command` ("DBSIZE") on a fresh
    /// connection; nil when it does not accept the connection or answer within 5 s.
    public func reply(to command: String) -> [UInt8]? { Self.reply(to: command, port: port) }

    private static func reply(to command: String, port: Int) -> [UInt8]? {
        guard let socket = try? LoopbackSocket.connected(to: UInt16(port)) else { return nil }
        defer { close(socket) }
        var timeout = timeval(tv_sec: 5, tv_usec: 0)
        setsockopt(socket, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        guard LoopbackSocket.send(socket, Array("\(command)\r\n".utf8)) else { return nil }
        var reply = [UInt8](repeating: 0, count: 64)
        let count = recv(socket, &reply, reply.count, 0)
        return count > 0 ? Array(reply[..<count]) : nil
    }

    /// Number of keys in database 0 (0 when the server does not answer).
    public func keyCount() -> Int {
        guard let reply = reply(to: "DBSIZE"), reply.first == UInt8(ascii: ":") else { return 0 }
        return Int(String(decoding: reply.dropFirst(), as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines))
            ?? 0
    }

    /// Freezes the server (SIGSTOP): connections still open through the listen backlog, but nothing is
    /// answered until ``resume()``.
    public func pause() { signalServer(SIGSTOP) }

    /// Lets a paused server go on (SIGCONT).
    public func resume() { signalServer(SIGCONT) }

    private func signalServer(_ signal: Int32) {
        process.withLock { server in
            if let server { Glibc.kill(server, signal) }
        }
    }

    /// Ends the server at once (SIGKILL), as a crash would.
    public func kill() { end(signal: SIGKILL) }

    /// Ends the server cleanly (SIGTERM) and waits for it; nothing when it is not running.
    public func stop() { end(signal: SIGTERM) }

    private func end(signal: Int32) {
        guard let server = process.withLock({ $0.take() }) else { return }
        Glibc.kill(server, signal)
        Glibc.kill(server, SIGCONT)  // a paused server acts on SIGTERM only once it runs again
        ChildProcess.wait(server)
    }
}
