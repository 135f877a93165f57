import Foundation

/// A real `redis-server` on a free loopback port, with no persistence, stopped by ``stop()`` or when the
/// value goes away. The main package's install script installs redis-server.
final class RedisProcess: Sendable {
    let port: Int
    private let process: Process

    init() throws {
        // A port found free may be taken again before redis binds it; then redis exits and another is tried.
        var attempt = 1
        while true {
            let candidate = try Self.freePort()
            do {
                process = try Self.launch(port: candidate)
                port = candidate
                return
            } catch where attempt < 4 {
                attempt += 1
            }
        }
    }

    /// Starts redis-server on `port` and waits until it answers.
    private static func launch(port: Int) throws -> Process {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/redis-server")
        process.arguments = ["--port", "\(port)", "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"]
        // Neither output may hold the test runner's pipes: a server outliving the tests would keep
        // `swift test` waiting for their end.
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        process.standardInput = FileHandle.nullDevice
        try process.run()
        try waitUntilAnswering(process, port: port)
        return process
    }

    deinit { stop() }

    var url: String { "redis://127.0.0.1:\(port)" }

    /// Stops the server with SIGKILL (a child spawned from a test's thread inherits that thread's blocked
    /// signals, SIGTERM among them) and waits until its port is closed (not for the child itself: waiting on
    /// a Foundation `Process` may spin).
    func stop() {
        kill(process.processIdentifier, SIGKILL)
        for _ in 0..<500 where Self.accepts(port) { usleep(10_000) }
    }

    /// Number of keys in the server's database 0 (0 when it does not answer).
    func keyCount() -> Int {
        guard let reply = Self.reply(to: "DBSIZE", port: port), reply.first == UInt8(ascii: ":") else { return 0 }
        return Int(String(decoding: reply.dropFirst(), as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0
    }

    /// Waits until the server holds at least one key: writes to the Redis tier are write-behind.
    func waitForKeys() async throws {
        let deadline = ContinuousClock.now + .seconds(60)
        while keyCount() == 0 {
            guard ContinuousClock.now < deadline else { throw CocoaError(.fileReadNoSuchFile) }
            try await Task.sleep(for: .milliseconds(20))
        }
    }

    /// Polls until the server answers PING (a bare connect could reach another test's listener that took
    /// the port) or has exited; a loaded machine may take seconds to start it.
    private static func waitUntilAnswering(_ process: Process, port: Int) throws {
        let deadline = ContinuousClock.now + .seconds(60)
        while ContinuousClock.now < deadline && process.isRunning {
            if reply(to: "PING", port: port).map({ $0.starts(with: Array("+PONG".utf8)) }) == true { return }
            usleep(20_000)
        }
        // Once the child has exited, Foundation has reaped it and its pid may belong to another process.
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        throw CocoaError(.executableLoad)
    }

    private static func accepts(_ port: Int) -> Bool {
        let socket = connectedSocket(port)
        if socket >= 0 { close(socket) }
        return socket >= 0
    }

    /// The first bytes Redis answers to an inline `command` over a fresh socket (nil: no connection or no
    /// answer within 5 s).
    private static func reply(to command: String, port: Int) -> [UInt8]? {
        let socket = connectedSocket(port)
        guard socket >= 0 else { return nil }
        defer { close(socket) }
        var timeout = timeval(tv_sec: 5, tv_usec: 0)
        setsockopt(socket, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        let bytes = Array("\(command)\r\n".utf8)
        guard send(socket, bytes, bytes.count, 0) == bytes.count else { return nil }
        var reply = [UInt8](repeating: 0, count: 64)
        let count = recv(socket, &reply, reply.count, 0)
        return count > 0 ? Array(reply[..<count]) : nil
    }

    /// A socket connected to `port` on loopback, or -1.
    private static func connectedSocket(_ port: Int) -> Int32 {
        let socket = Foundation.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        } == 0
        if !connected { close(socket) }
        return connected ? socket : -1
    }

    /// A port the kernel just handed out and released: free for the server to take.
    private static func freePort() throws -> Int {
        let socket = Foundation.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(socket) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer in
                bind(socket, pointer, length) == 0 && getsockname(socket, pointer, &length) == 0
            }
        }
        guard bound else { throw CocoaError(.fileWriteUnknown) }
        return Int(UInt16(bigEndian: address.sin_port))
    }
}
