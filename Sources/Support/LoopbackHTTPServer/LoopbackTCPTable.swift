import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// What Linux's /proc/net/tcp tables say about this machine's loopback TCP sockets: how a test sees bytes
/// arrive in a socket nobody reads yet, or which connections a server still holds, without touching them.
public enum LoopbackTCPTable {
    /// Bytes received and not yet read by this machine's TCP sockets connected to 127.0.0.1:`port`, from
    /// the receive queues of /proc/net/tcp: how a test sees an origin's bytes arrive in a loader's socket.
    public static func unreadBytes(fromPort port: Int) -> Int {
        // Rows: "sl local_address rem_address st tx_queue:rx_queue ...", addresses as hex "0100007F:1F90".
        let remote = "0100007F:" + String(format: "%04X", port)
        return rows(of: "/proc/net/tcp").reduce(0) { total, fields in
            guard fields.count > 4, fields[2] == remote, let queues = fields[4].split(separator: ":").last,
                let unread = Int(queues, radix: 16)
            else { return total }
            return total + unread
        }
    }

    /// Server-side TCP sockets of `port` that an open file descriptor still holds (IPv4 and IPv6): every
    /// connection the server accepted and has not closed. A socket the kernel keeps alone after the server
    /// closed it has no inode and is not counted, nor is the listening socket.
    public static func serverSocketsHeld(port: Int) -> Int {
        let portHex = String(format: ":%04X", port)
        return (rows(of: "/proc/net/tcp") + rows(of: "/proc/net/tcp6")).count { fields in
            guard fields.count > 9 else { return false }
            let (local, state, inode) = (fields[1], fields[3], fields[9])
            // 0A is LISTEN: the listening socket itself.
            return local.hasSuffix(portHex) && state != "0A" && inode != "0"
        }
    }

    /// The rows of a /proc/net table after its header, split into fields.
    private static func rows(of table: String) -> [[Substring]] {
        // Read to the end: the file's size is 0, and one read returns only a page of its rows.
        let descriptor = open(table, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return [] }
        defer { close(descriptor) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        while case let count = chunk.withUnsafeMutableBytes({ read(descriptor, $0.baseAddress, $0.count) }), count > 0 {
            bytes += chunk[..<count]
        }
        return String(decoding: bytes, as: UTF8.self).split(separator: "\n").dropFirst()
            .map { $0.split(separator: " ", omittingEmptySubsequences: true) }
    }
}
