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
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        self.process = process
        try waitUntilAccepting()
    }

    deinit { stop() }

    var url: String { "redis://127.0.0.1:\(port)" }

    func stop() {
        if process.isRunning {
            process.terminate()
            process.waitUntilExit()
        }
    }

    /// Number of keys in the server's database 0, asked with `redis-cli`.
    func keyCount() throws -> Int {
        let cli = Process()
        cli.executableURL = URL(fileURLWithPath: "/usr/bin/redis-cli")
        cli.arguments = ["-p", "\(port)", "DBSIZE"]
        let output = Pipe()
        cli.standardOutput = output
        try cli.run()
        cli.waitUntilExit()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        return Int(text.trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0
    }

    /// Waits until the server holds at least one key: writes to the Redis tier are write-behind.
    func waitForKeys() async throws {
        for _ in 0..<1_000 where try keyCount() == 0 { try await Task.sleep(for: .milliseconds(20)) }
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
