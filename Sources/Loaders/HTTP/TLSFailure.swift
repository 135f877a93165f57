/// Which TLS check failed, in ``HTTPLoaderFailure/tls(_:)``: what a server author needs to tell a
/// misconfigured origin (``untrustedCertificate(verifyResult:)``) from an attack or a stale pin (``pinnedKeyMismatch``)
/// from a configuration mistake on this side (``localConfiguration``).
public enum TLSFailure: Sendable, Hashable, CustomStringConvertible {
    /// The server's certificate chain does not lead to a trusted CA (unknown or private CA, self-signed,
    /// expired, revoked). `verifyResult` is OpenSSL's X509 verification code (20: issuer not found
    /// locally, 18: self-signed, 10: expired), 0 when unknown.
    case untrustedCertificate(verifyResult: Int)
    /// The chain is trusted but names other hosts than the one in the URL.
    case hostnameMismatch
    /// The server's public key is none of the pinned keys.
    case pinnedKeyMismatch
    /// The handshake failed: no common protocol or cipher, the server refused our client certificate,
    /// or it asked for one and none was configured. Over TLS 1.3 the server refuses a client
    /// certificate after the client finished its side, so that refusal can also surface as a send or
    /// receive failure (``HTTPLoaderFailure/network(curlCode:)``) when the server's close arrives first.
    case handshakeFailed
    /// This side's TLS settings could not be used: the CA file or directory, the client certificate or
    /// its key is missing or unreadable.
    case localConfiguration

    public var description: String {
        switch self {
        case .untrustedCertificate(let code): "untrusted certificate (X509 verify result \(code))"
        case .hostnameMismatch: "certificate does not match the host name"
        case .pinnedKeyMismatch: "public key does not match the pinned keys"
        case .handshakeFailed: "TLS handshake failed"
        case .localConfiguration: "local TLS settings unusable"
        }
    }
}
