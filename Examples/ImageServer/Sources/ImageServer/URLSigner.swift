import CLibCrypto
import Foundation

/// imgproxy's URL signatures: base64url (no padding) of HMAC-SHA256 with the key over salt + path, where
/// the path is everything after the signature, starting with `/`. Several key pairs verify (rotation);
/// the first signs.
public struct URLSigner: Sendable {
    /// One key and its salt, as bytes (the configuration gives them in hex).
    public struct KeyPair: Sendable, Hashable {
        public var key: [UInt8]
        public var salt: [UInt8]
        public init(key: [UInt8], salt: [UInt8]) {
            self.key = key
            self.salt = salt
        }
    }

    /// Bytes in a SHA-256 HMAC.
    public static let fullSignatureSize = 32

    public let keyPairs: [KeyPair]
    /// Bytes of the HMAC kept (imgproxy's `IMGPROXY_SIGNATURE_SIZE`).
    public let signatureSize: Int

    public init(keyPairs: [KeyPair], signatureSize: Int = URLSigner.fullSignatureSize) {
        self.keyPairs = keyPairs
        self.signatureSize = min(max(1, signatureSize), Self.fullSignatureSize)
    }

    /// Whether signatures are checked at all: without a key any signature segment is accepted, as imgproxy does.
    public var isEnabled: Bool { !keyPairs.isEmpty }

    /// The signature of `path` (which starts with `/`) with the first key pair; "insecure" without one.
    public func signature(for path: String) -> String {
        guard let pair = keyPairs.first else { return "insecure" }
        return Base64URL.encode(Self.hmac(pair, path).prefix(signatureSize))
    }

    /// A full URL path for `path`: `/{signature}{path}`.
    public func signedPath(_ path: String) -> String { "/" + signature(for: path) + path }

    /// Whether `signature` signs `path` under any key pair (always true when signing is off).
    public func verify(signature: Substring, path: Substring) -> Bool {
        guard isEnabled else { return true }
        guard let given = Base64URL.decode(signature), given.count == signatureSize else { return false }
        return keyPairs.contains { pair in
            Self.constantTimeEqual(Array(Self.hmac(pair, String(path)).prefix(signatureSize)), given)
        }
    }

    static func hmac(_ pair: KeyPair, _ path: String) -> [UInt8] {
        let message = pair.salt + Array(path.utf8)
        var digest = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        // Pointers live only for this call; OpenSSL copies nothing past it.
        pair.key.withUnsafeBytes { key in
            message.withUnsafeBytes { data in
                digest.withUnsafeMutableBytes { out in
                    _ = HMAC(
                        EVP_sha256(), key.baseAddress, Int32(key.count),
                        data.baseAddress?.assumingMemoryBound(to: UInt8.self), data.count,
                        out.baseAddress?.assumingMemoryBound(to: UInt8.self), &length)
                }
            }
        }
        return Array(digest.prefix(Int(length)))
    }

    static func constantTimeEqual(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        guard a.count == b.count else { return false }
        return a.withUnsafeBytes { x in
            b.withUnsafeBytes { y in CRYPTO_memcmp(x.baseAddress, y.baseAddress, a.count) == 0 }
        }
    }
}

/// Base64 with the URL alphabet (`-` and `_`) and no padding, as imgproxy's signatures and encoded
/// source URLs use; decoding accepts padding too.
enum Base64URL {
    static func encode<Bytes: Sequence<UInt8>>(_ bytes: Bytes) -> String {
        Data(bytes).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    static func decode(_ text: Substring) -> [UInt8]? {
        var standard = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while standard.hasSuffix("=") { standard.removeLast() }
        let remainder = standard.utf8.count % 4
        if remainder == 1 { return nil }
        if remainder > 0 { standard += String(repeating: "=", count: 4 - remainder) }
        return Data(base64Encoded: standard).map(Array.init)
    }
}
