import Foundation
import Glibc
import WebImageCore
import WebImageTestSupport
@testable import WebImageRedisCache

/// A real `redis-server` on a free loopback port, with its data directory in a temporary folder and
/// persistence off. Stopped (SIGTERM) when released; `kill()` ends it abruptly, `start()` brings it back
/// on the same port.
final class RedisServerProcess: Sendable {
    let port: Int
    let directory: TemporaryDirectory
    private let extraArguments: [String]
    /// Guards the running server's process id (nil when stopped).
    private let process = Locked<pid_t?>(nil)

    /// How long a starting server may take to answer PING on a loaded machine.
    static let startTimeout: Duration = .seconds(60)

    init(extraArguments: [String] = []) throws {
        directory = try TemporaryDirectory(prefix: "redis")
        self.extraArguments = extraArguments
        // A port found free may be taken again (by another test's server or an outgoing connection)
        // before redis binds it: then the server exits at once, and another port is tried.
        var attempt = 0
        while true {
            let candidate = try Self.freeLoopbackPort()
            do {
                let server = try Self.launch(port: candidate, directory: directory, extraArguments: extraArguments)
                port = candidate
                process.withLock { $0 = server }
                return
            } catch {
                attempt += 1
                if attempt == Self.startAttempts { throw error }
            }
        }
    }

    /// Ports tried before a server that will not start is an error.
    static let startAttempts = 4

    deinit { stop() }

    var url: String { "redis://127.0.0.1:\(port)" }
    var endpoint: RedisEndpoint { RedisEndpoint(host: "127.0.0.1", port: port) }

    /// Starts the server again on its port and waits until it answers PING.
    func start() throws {
        let server = try Self.launch(port: port, directory: directory, extraArguments: extraArguments)
        process.withLock { $0 = server }
    }

    /// Spawns a server on `port` and waits until it answers; a server that exits early (its port taken) or
    /// does not answer in time is ended and reported.
    private static func launch(port: Int, directory: TemporaryDirectory, extraArguments: [String]) throws -> pid_t {
        let arguments = ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
                         "--dir", directory.url.path, "--logfile", directory.file("redis.log").path,
                         "--enable-debug-command", "yes"] + extraArguments
        let server = try spawn("/usr/bin/redis-server", arguments)
        let endpoint = RedisEndpoint(host: "127.0.0.1", port: port)
        let deadline = ContinuousClock.now + startTimeout
        while ContinuousClock.now < deadline {
            if answersLikeRedis(endpoint) { return server }
            var status: Int32 = 0
            if waitpid(server, &status, WNOHANG) == server { break }  // exited: the port was taken
            usleep(20_000)
        }
        Glibc.kill(server, SIGKILL)
        var status: Int32 = 0
        while waitpid(server, &status, 0) == -1 && errno == EINTR {}
        throw RedisTestError.serverDidNotStart(port)
    }

    /// Whether a Redis server answers PING at `endpoint`: PONG, or an error reply such as NOAUTH (a server
    /// with `--requirepass`). A bare connect would also succeed against another test's listener that took
    /// the port.
    private static func answersLikeRedis(_ endpoint: RedisEndpoint) -> Bool {
        guard let connection = try? RedisConnection(endpoint: endpoint, connectTimeout: 1000, readTimeout: 1000,
                                                    writeTimeout: 1000),
              let replies = try? connection.run([RedisCommand.make(["PING"])]) else { return false }
        switch replies.first {
        case .status("PONG"), .error: return true
        default: return false
        }
    }

    /// Freezes the server (SIGSTOP): connections still open through the listen backlog, but nothing is
    /// answered until ``resume()``.
    func pause() { signalServer(SIGSTOP) }

    /// Lets a paused server go on (SIGCONT).
    func resume() { signalServer(SIGCONT) }

    private func signalServer(_ signal: Int32) {
        process.withLock { server in
            if let server { Glibc.kill(server, signal) }
        }
    }

    /// Ends the server at once (SIGKILL), as a crash would.
    func kill() { end(signal: SIGKILL) }

    /// Ends the server cleanly.
    func stop() { end(signal: SIGTERM) }

    private func end(signal: Int32) {
        guard let server = process.withLock({ $0.take() }) else { return }
        Glibc.kill(server, signal)
        Glibc.kill(server, SIGCONT)  // a paused server acts on SIGTERM only once it runs again
        var status: Int32 = 0
        while waitpid(server, &status, 0) == -1 && errno == EINTR {}
    }

    /// Starts `path` with `arguments`, with every signal unblocked and at its default action and its standard
    /// streams on /dev/null. (Foundation's
    /// `Process` passes on the test thread's signal mask, in which SIGTERM is blocked, so the server would
    /// never stop.)
    static func spawn(_ path: String, _ arguments: [String]) throws -> pid_t {
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
        // The C strings are owned here: duplicated for the call, freed after it.
        let argv: [UnsafeMutablePointer<CChar>?] = ([path] + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        // Standard input, output and error on /dev/null: a server that outlived a crashed test process
        // must not hold the test runner's output pipe open, or `swift test` would wait for it forever.
        var files = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&files)
        defer { posix_spawn_file_actions_destroy(&files) }
        for descriptor: Int32 in [0, 1, 2] {
            posix_spawn_file_actions_addopen(&files, descriptor, "/dev/null", descriptor == 0 ? O_RDONLY : O_WRONLY, 0)
        }
        var pid: pid_t = 0
        let result = posix_spawn(&pid, path, &files, &attributes, argv, environ)
        guard result == 0 else { throw RedisTestError.cannotSpawn(path, result) }
        return pid
    }

    /// Runs one command on a fresh connection, for checks from outside the cache.
    func command(_ words: [String]) throws -> RedisReply {
        try command([words.map { Data($0.utf8) }])[0]
    }

    func command(_ commands: [[Data]], password: String? = nil) throws -> [RedisReply] {
        var endpoint = endpoint
        endpoint.password = password
        let connection = try RedisConnection(endpoint: endpoint, connectTimeout: 5000, readTimeout: 5000, writeTimeout: 5000)
        return try connection.run(commands)
    }

    /// A port nothing listens on right now: bind port 0, read the port, close.
    static func freeLoopbackPort() throws -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        return try bindLoopback(fd, listening: false)
    }

    /// Binds `fd` to a free port on 127.0.0.1 (and listens, when asked); the port.
    static func bindLoopback(_ fd: Int32, listening: Bool) throws -> Int {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, length) == 0 && (!listening || listen(fd, 4) == 0) && getsockname(fd, $0, &length) == 0
            }
        }
        guard bound else { throw RedisTestError.noFreePort }
        return Int(UInt16(bigEndian: address.sin_port))
    }
}

enum RedisTestError: Error {
    case noFreePort
    case serverDidNotStart(Int)
    case timedOut(String)
    case cannotSpawn(String, Int32)
}

/// Polls `condition` every 20 ms until it holds, for at most `timeout` (generous: a loaded 2-core machine).
func eventually(_ what: String, timeout: Duration = .seconds(20), _ condition: () throws -> Bool) throws {
    let deadline = ContinuousClock.now + timeout
    while ContinuousClock.now < deadline {
        if try condition() { return }
        usleep(20_000)
    }
    throw RedisTestError.timedOut(what)
}

extension RedisCacheConfiguration {
    /// A configuration for test servers: generous timeouts (a loaded machine), short backoff (recovery
    /// tests), write-through unless a test says otherwise.
    static func forTests(_ servers: [RedisServerProcess], policy: WritePolicy = .writeThrough) -> RedisCacheConfiguration {
        var configuration = try! RedisCacheConfiguration(nodes: servers.map(\.endpoint))
        configuration.namespace = "test-\(UUID().uuidString.prefix(8))"
        configuration.connectTimeout = .milliseconds(5000)
        configuration.readTimeout = .milliseconds(5000)
        configuration.writeTimeout = .milliseconds(5000)
        configuration.poolWaitTimeout = .milliseconds(5000)
        configuration.reconnectBackoffInitial = .milliseconds(20)
        configuration.reconnectBackoffMax = .milliseconds(200)
        configuration.writePolicy = policy
        return configuration
    }
}
