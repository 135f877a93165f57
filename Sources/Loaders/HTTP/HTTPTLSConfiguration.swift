import Foundation

/// How an ``HTTPLoader`` trusts servers and proves who it is over HTTPS: which CAs verify servers,
/// an optional client certificate (mutual TLS to internal origins), and optional public-key pins.
///
/// Verification is always on; the per-request `.allowInvalidSSLCertificates` option is the only way to
/// turn it off. To trust a private CA as well as the public ones:
///
/// ```swift
/// var configuration = HTTPLoaderConfiguration()
/// configuration.tls.trustedCertificatesPEM = try Data(contentsOf: URL(fileURLWithPath: "/etc/internal-ca.pem"))
/// ```
public struct HTTPTLSConfiguration: Sendable, Hashable {
    /// A PEM file of CA certificates that replaces libcurl's default bundle (`CURLOPT_CAINFO`; on Debian
    /// `/etc/ssl/certs/ca-certificates.crt`). Nil by default: libcurl's default.
    public var caBundlePath: String?
    /// A directory of CA certificates named by subject hash, as `openssl rehash` makes it
    /// (`CURLOPT_CAPATH`; on Debian libcurl's default is `/etc/ssl/certs`, the system store). Nil by
    /// default: libcurl's default.
    public var caDirectoryPath: String?
    /// CA certificates in PEM held in memory (`CURLOPT_CAINFO_BLOB`), for a private CA that is not in a
    /// file. They take the place of the CA bundle file (``caBundlePath`` or the default); the CA
    /// directory is still consulted, so on Debian the system's CAs stay trusted unless
    /// ``trustsSystemCertificates`` is false. Nil by default.
    public var trustedCertificatesPEM: Data?
    /// Whether libcurl's default CA bundle and directory (the system's CAs) are trusted besides what
    /// ``caBundlePath``, ``caDirectoryPath`` and ``trustedCertificatesPEM`` add. True by default; false
    /// trusts only the CAs given here (an internal-only client).
    public var trustsSystemCertificates = true
    /// The certificate and key this loader presents when a server asks for one. Nil by default.
    public var clientCertificate: HTTPClientCertificate?
    /// SHA-256 digests, in base64, of the DER SubjectPublicKeyInfo of the server keys to accept
    /// (`CURLOPT_PINNEDPUBLICKEY`): a connection whose server key matches none fails with
    /// ``HTTPLoaderFailure/tls(_:)`` ``TLSFailure/pinnedKeyMismatch``, even when `.allowInvalidSSLCertificates` is set. List a backup
    /// key too, so a key rotation does not lock you out. Compute one with
    /// `openssl x509 -in cert.pem -pubkey -noout | openssl pkey -pubin -outform DER | openssl dgst -sha256 -binary | base64`.
    /// Empty by default: no pinning. Applies to every https host of the loader.
    public var pinnedPublicKeySHA256: [String] = []

    /// System CAs, no client certificate, no pins.
    public init() {}

    /// The value for `CURLOPT_PINNEDPUBLICKEY` ("sha256//a;sha256//b"), nil when nothing is pinned.
    /// A pin that is not the base64 of 32 bytes is a programmer error.
    var pinnedPublicKeyOption: String? {
        guard !pinnedPublicKeySHA256.isEmpty else { return nil }
        for pin in pinnedPublicKeySHA256 {
            precondition(
                Data(base64Encoded: pin)?.count == Self.sha256DigestBytes,
                "HTTPTLSConfiguration.pinnedPublicKeySHA256: \"\(pin)\" is not a base64 SHA-256 digest")
        }
        return pinnedPublicKeySHA256.map { "sha256//\($0)" }.joined(separator: ";")
    }

    /// A SHA-256 digest's size in bytes.
    private static let sha256DigestBytes = 32
}

/// A client certificate and its private key, for servers that require mutual TLS. Each comes from a
/// PEM file or from PEM bytes in memory.
public struct HTTPClientCertificate: Sendable, Hashable {
    /// Where a PEM object comes from.
    public enum Source: Sendable, Hashable {
        /// A PEM file on disk (`CURLOPT_SSLCERT` / `CURLOPT_SSLKEY`).
        case file(path: String)
        /// PEM bytes in memory (`CURLOPT_SSLCERT_BLOB` / `CURLOPT_SSLKEY_BLOB`).
        case pem(Data)
    }

    /// The certificate (optionally followed by its intermediates).
    public var certificate: Source
    /// The private key of the certificate.
    public var privateKey: Source
    /// The key's passphrase when it is encrypted; nil for a plain key.
    public var privateKeyPassword: String?

    /// A client certificate from `certificate` and `privateKey`.
    public init(certificate: Source, privateKey: Source, privateKeyPassword: String? = nil) {
        self.certificate = certificate
        self.privateKey = privateKey
        self.privateKeyPassword = privateKeyPassword
    }
}
