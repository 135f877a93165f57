import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A local nginx serving a directory, started with a generated config on a free port and stopped at the end.
final class Nginx {
    let port: UInt16
    private let process = Process()

    init(root: URL, workDirectory: URL) throws {
        port = try Self.freePort()
        let config = """
        worker_processes 2;
        daemon off;
        master_process on;
        pid \(workDirectory.path)/nginx.pid;
        error_log \(workDirectory.path)/error.log warn;
        events { worker_connections 4096; }
        http {
            access_log off;
            sendfile on;
            tcp_nopush on;
            tcp_nodelay on;
            keepalive_timeout 120;
            keepalive_requests 1000000;
            client_body_temp_path \(workDirectory.path)/client_temp;
            proxy_temp_path \(workDirectory.path)/proxy_temp;
            fastcgi_temp_path \(workDirectory.path)/fastcgi_temp;
            uwsgi_temp_path \(workDirectory.path)/uwsgi_temp;
            scgi_temp_path \(workDirectory.path)/scgi_temp;
            default_type application/octet-stream;
            server {
                listen 127.0.0.1:\(port);
                root \(root.path);
            }
        }
        """
        let configURL = workDirectory.appendingPathComponent("nginx.conf")
        try config.write(to: configURL, atomically: true, encoding: .utf8)
        process.executableURL = URL(fileURLWithPath: "/usr/sbin/nginx")
        process.arguments = ["-c", configURL.path, "-p", workDirectory.path, "-e", workDirectory.appendingPathComponent("error.log").path]
        try process.run()
        try waitUntilListening()
    }

    func stop() {
        process.terminate()
        process.waitUntilExit()
    }

    /// Connects until nginx accepts (startup takes a few milliseconds); gives up after 10 seconds.
    private func waitUntilListening() throws {
        for _ in 0..<1000 {
            if Self.canConnect(port) { return }
            usleep(10_000)
        }
        throw POSIXError(.ETIMEDOUT)
    }

    private static func canConnect(_ port: UInt16) -> Bool {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = port.bigEndian
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        } == 0
    }

    /// A port the kernel just handed out (bound to port 0, read, released).
    private static func freePort() throws -> UInt16 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let ok = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0
            }
        }
        guard ok else { throw POSIXError(.EADDRNOTAVAIL) }
        return UInt16(bigEndian: address.sin_port)
    }
}
