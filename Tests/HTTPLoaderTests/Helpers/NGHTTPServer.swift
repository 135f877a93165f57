import Foundation

/// Debian's `nghttpd` (package nghttp2-server, installed by scripts/install-deps.sh): a real HTTP/2
/// server over TLS, serving the files of a directory. Listens on 127.0.0.1 and a port the kernel picks,
/// found through /proc once the socket listens.
final class NGHTTPServer {
    struct Unavailable: Error, CustomStringConvertible { let description: String }

    private let process = Process()
    let port: UInt16

    /// How long nghttpd may take to start listening on a loaded machine.
    private static let startTimeout: TimeInterval = 20
    private static let candidates = ["/usr/sbin/nghttpd", "/usr/bin/nghttpd", "/usr/local/bin/nghttpd"]

    /// Whether nghttpd is installed here.
    static var isInstalled: Bool { candidates.contains { FileManager.default.isExecutableFile(atPath: $0) } }

    /// Serves `documentRoot` over TLS with `certificate` and `key`.
    init(documentRoot: URL, certificate: URL, key: URL) throws {
        guard let executable = Self.candidates.first(where: { FileManager.default.isExecutableFile(atPath: $0) }) else {
            throw Unavailable(
                description: "nghttpd is not installed (package nghttp2-server; run scripts/install-deps.sh)")
        }
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = ["--address=127.0.0.1", "--htdocs=\(documentRoot.path)", "0", key.path, certificate.path]
        // Its output goes to a log file next to the documents, for the error below.
        let log = documentRoot.deletingLastPathComponent().appendingPathComponent("nghttpd-\(UUID().uuidString).log")
        _ = FileManager.default.createFile(atPath: log.path, contents: nil)
        let output = try FileHandle(forWritingTo: log)
        process.standardOutput = output
        process.standardError = output
        try process.run()
        let deadline = Date().addingTimeInterval(Self.startTimeout)
        var found: UInt16?
        // Waiting on an external process: check its listening socket until it shows up.
        while found == nil && process.isRunning && Date() < deadline {
            found = Self.listeningPort(of: process.processIdentifier)
            if found == nil { Thread.sleep(forTimeInterval: 0.02) }
        }
        guard let found else {
            Self.stop(process)
            throw Unavailable(
                description:
                    "nghttpd did not start listening (output: \((try? String(contentsOf: log, encoding: .utf8)) ?? ""))"
            )
        }
        port = found
    }

    deinit { Self.stop(process) }

    /// SIGKILL, not `terminate()`'s SIGTERM: a child spawned from a test thread inherits that thread's
    /// signal mask, where SIGTERM may be blocked.
    private static func stop(_ process: Process) {
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }

    /// `https://127.0.0.1:<port>` + `path`.
    func url(_ path: String) -> URL { URL(string: "https://127.0.0.1:\(port)\(path)")! }

    /// The port of a listening IPv4 socket the process holds: its socket inodes (from /proc/<pid>/fd),
    /// less any it inherited from this process, matched against LISTEN rows (state 0A) of
    /// /proc/<pid>/net/tcp.
    private static func listeningPort(of pid: Int32) -> UInt16? {
        let inodes = socketInodes(of: "\(pid)").subtracting(socketInodes(of: "self"))
        guard !inodes.isEmpty else { return nil }
        guard let table = readProcFile("/proc/\(pid)/net/tcp") else { return nil }
        for row in table.split(separator: "\n").dropFirst() {
            let fields = row.split(separator: " ")
            // sl, local_address, rem_address, st, tx_queue:rx_queue, tr:tm->when, retrnsmt, uid, timeout, inode
            guard fields.count > 9, fields[3] == "0A", inodes.contains(String(fields[9])),
                let colon = fields[1].lastIndex(of: ":"),
                let port = UInt16(fields[1][fields[1].index(after: colon)...], radix: 16)
            else { continue }
            return port
        }
        return nil
    }

    /// The inodes of the sockets process `pid` ("self" for this one) has open.
    private static func socketInodes(of pid: String) -> Set<String> {
        let fdDirectory = "/proc/\(pid)/fd"
        guard let entries = try? FileManager.default.contentsOfDirectory(atPath: fdDirectory) else { return [] }
        var inodes = Set<String>()
        for entry in entries {
            guard let target = try? FileManager.default.destinationOfSymbolicLink(atPath: "\(fdDirectory)/\(entry)"),
                target.hasPrefix("socket:[")
            else { continue }
            inodes.insert(String(target.dropFirst("socket:[".count).dropLast()))
        }
        return inodes
    }

    /// The whole of a /proc file. Its size reads as 0, and Foundation's file readers then stop after
    /// the first page, missing rows when many sockets are open: read() until the end instead.
    private static func readProcFile(_ path: String) -> String? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { break }
            bytes += buffer[..<count]
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
