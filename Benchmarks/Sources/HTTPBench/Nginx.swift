import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A local nginx serving a directory, started with a generated config on a free port and stopped at the
/// end: plain HTTP/1.1 on ``port``, and HTTPS with HTTP/2 (a self-signed certificate) on ``tlsPort``.
final class Nginx {
    let port: UInt16
    let tlsPort: UInt16
    private let process = Process()

    init(root: URL, workDirectory: URL) throws {
        port = try Self.freePort()
        tlsPort = try Self.freePort()
        let key = workDirectory.appendingPathComponent("key.pem").path
        let certificate = workDirectory.appendingPathComponent("cert.pem").path
        try Self.makeCertificate(key: key, certificate: certificate)
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
                server {
                    listen 127.0.0.1:\(tlsPort) ssl http2;
                    ssl_certificate \(certificate);
                    ssl_certificate_key \(key);
                    http2_max_concurrent_streams 128;
                    root \(root.path);
                }
            }
            """
        let configURL = workDirectory.appendingPathComponent("nginx.conf")
        try config.write(to: configURL, atomically: true, encoding: .utf8)
        process.executableURL = URL(fileURLWithPath: "/usr/sbin/nginx")
        process.arguments = [
            "-c", configURL.path, "-p", workDirectory.path, "-e",
            workDirectory.appendingPathComponent("error.log").path,
        ]
        try process.run()
        try waitUntilListening(port)
        try waitUntilListening(tlsPort)
    }

    /// A throwaway self-signed certificate for 127.0.0.1.
    private static func makeCertificate(key: String, certificate: String) throws {
        let openssl = Process()
        openssl.executableURL = URL(fileURLWithPath: "/usr/bin/openssl")
        openssl.arguments = [
            "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
            "-keyout", key, "-out", certificate, "-days", "1", "-subj", "/CN=127.0.0.1",
        ]
        openssl.standardError = FileHandle.nullDevice
        try openssl.run()
        openssl.waitUntilExit()
        guard openssl.terminationStatus == 0 else { throw BenchFailure(description: "openssl failed") }
    }

    func stop() {
        process.terminate()
        process.waitUntilExit()
    }

    /// Connects until nginx accepts (startup takes a few milliseconds); gives up after 10 seconds.
    private func waitUntilListening(_ port: UInt16) throws {
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
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
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
