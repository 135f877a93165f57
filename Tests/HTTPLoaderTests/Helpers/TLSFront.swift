import CHTTPTestSupport
import Foundation
import LoopbackHTTPServer

/// HTTPS in front of a ``LoopbackHTTPServer``: a TLS server on 127.0.0.1 (OpenSSL, in
/// Tests/CHTTPTestSupport) that relays each connection, decrypted, to the plain server, so every route
/// the loopback server has also answers over HTTPS.
final class TLSFront {
    struct StartError: Error, CustomStringConvertible { let description: String }

    private let front: OpaquePointer
    /// The TLS port on 127.0.0.1.
    let port: UInt16

    /// Serves `chain` (leaf first) with `key`; when `clientCA` is given, a client certificate issued by
    /// it is required.
    init(backend: LoopbackHTTPServer, chain: URL, key: URL, clientCA: URL? = nil) throws {
        var error = [CChar](repeating: 0, count: 512)
        let started = error.withUnsafeMutableBufferPointer { buffer in
            ctls_front_start(chain.path, key.path, clientCA?.path, backend.port, buffer.baseAddress, buffer.count)
        }
        guard let started else {
            throw StartError(
                description: String(decoding: error.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
        }
        front = started
        port = ctls_front_port(started)
    }

    deinit { ctls_front_stop(front) }

    /// `https://<host>:<port>` + `path`.
    func url(_ path: String, host: String = "127.0.0.1") -> URL { URL(string: "https://\(host):\(port)\(path)")! }

    /// Handshakes that completed, and that failed, so far.
    var handshakesCompleted: Int { Int(ctls_front_handshakes_completed(front)) }
    var handshakesFailed: Int { Int(ctls_front_handshakes_failed(front)) }

    /// Waits until `count` handshakes ended on the server's side, which can be just after the client
    /// saw the outcome. False when they did not within `timeout` seconds (generous: a loaded machine).
    func waitForHandshakes(_ count: Int, timeout: Int = 20) -> Bool {
        ctls_front_wait_for_handshakes(front, Int32(count), Int32(timeout * 1000)) != 0
    }
}
