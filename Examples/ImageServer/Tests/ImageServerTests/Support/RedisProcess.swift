import Foundation

/// A real `redis-server` on a free loopback port, with no persistence, stopped by ``stop()`` or when the
/// value goes away. The main package's install script installs redis-server.
final class RedisProcess: Sendable {
    let port: Int
    private let process: Process

    init() throws {
        port = try Self.freePort()
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/redis-server")
        process.arguments = ["--port", "\(port)", "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"]
        // Neither output may hold the test runner's pipes: a server outliving the tests would keep
        // `swift test` waiting for their end.
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        process.standardInput = FileHandle.nullDevice
        try process.run()
        self.process = process
        try waitUntilAccepting()
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

    /// Number of keys in the server's database 0: `DBSIZE` over a plain socket (no child process, whose
    /// reaping Foundation's `Process` may spin on from a test's thread).
    func keyCount() -> Int {
        let socket = Foundation.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(socket) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        } == 0
        guard connected else { return 0 }
        let command = Array("DBSIZE\r\n".utf8)
        guard send(socket, command, command.count, 0) == command.count else { return 0 }
        var reply = [UInt8](repeating: 0, count: 64)
        let count = recv(socket, &reply, reply.count, 0)
        guard count > 1, reply[0] == UInt8(ascii: ":") else { return 0 }
        return Int(String(decoding: reply[1..<count], as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0
    }

    /// Waits until the server holds at least one key: writes to the Redis tier are write-behind.
    func waitForKeys() async throws {
        for _ in 0..<1_000 where keyCount() == 0 { try await Task.sleep(for: .milliseconds(20)) }
    }

    /// Polls until the port accepts a connection (a loaded machine may take seconds to start the server).
    private func waitUntilAccepting() throws {
        for _ in 0..<500 {
            if Self.accepts(port) { return }
            usleep(20_000)
        }
        throw CocoaError(.executableLoad)
    }

    private static func accepts(_ port: Int) -> Bool {
        let socket = Foundation.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(socket) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        } == 0
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
