internal import CCurl
import Foundation

/// A loader's ``HTTPTLSConfiguration`` turned once into libcurl options, set on every transfer's easy
/// handle (a recycled handle was reset, so each transfer sets them again).
struct TLSOptions: Sendable {
    private let configuration: HTTPTLSConfiguration
    private let caBlob: [UInt8]?
    private let certificateBlob: [UInt8]?
    private let keyBlob: [UInt8]?
    private let pins: String?

    init(_ configuration: HTTPTLSConfiguration) {
        self.configuration = configuration
        caBlob = configuration.trustedCertificatesPEM.map { [UInt8]($0) }
        if case .pem(let bytes) = configuration.clientCertificate?.certificate {
            certificateBlob = [UInt8](bytes)
        } else {
            certificateBlob = nil
        }
        if case .pem(let bytes) = configuration.clientCertificate?.privateKey {
            keyBlob = [UInt8](bytes)
        } else {
            keyBlob = nil
        }
        pins = configuration.pinnedPublicKeyOption
    }

    /// Sets the trust, client certificate and pin options on `easy`. Peer and host verification stay
    /// at libcurl's default (on); only a request's `.allowInvalidSSLCertificates` turns them off.
    func apply(to easy: UnsafeMutableRawPointer) {
        if let path = configuration.caBundlePath {
            _ = ccurl_easy_setopt_string(easy, CURLOPT_CAINFO, path)
        } else if !configuration.trustsSystemCertificates {
            _ = ccurl_easy_setopt_string(easy, CURLOPT_CAINFO, nil)
        }
        if let path = configuration.caDirectoryPath {
            _ = ccurl_easy_setopt_string(easy, CURLOPT_CAPATH, path)
        } else if !configuration.trustsSystemCertificates {
            _ = ccurl_easy_setopt_string(easy, CURLOPT_CAPATH, nil)
        }
        if let caBlob { Self.setBlob(easy, CURLOPT_CAINFO_BLOB, caBlob) }
        if let client = configuration.clientCertificate {
            switch client.certificate {
            case .file(let path): _ = ccurl_easy_setopt_string(easy, CURLOPT_SSLCERT, path)
            case .pem: if let certificateBlob { Self.setBlob(easy, CURLOPT_SSLCERT_BLOB, certificateBlob) }
            }
            switch client.privateKey {
            case .file(let path): _ = ccurl_easy_setopt_string(easy, CURLOPT_SSLKEY, path)
            case .pem: if let keyBlob { Self.setBlob(easy, CURLOPT_SSLKEY_BLOB, keyBlob) }
            }
            _ = ccurl_easy_setopt_string(easy, CURLOPT_SSLCERTTYPE, "PEM")
            _ = ccurl_easy_setopt_string(easy, CURLOPT_SSLKEYTYPE, "PEM")
            if let password = client.privateKeyPassword {
                _ = ccurl_easy_setopt_string(easy, CURLOPT_KEYPASSWD, password)
            }
        }
        if let pins { _ = ccurl_easy_setopt_string(easy, CURLOPT_PINNEDPUBLICKEY, pins) }
    }

    /// libcurl copies the bytes (CURL_BLOB_COPY), so the pointer is needed only during the call.
    private static func setBlob(_ easy: UnsafeMutableRawPointer, _ option: CURLoption, _ bytes: [UInt8]) {
        bytes.withUnsafeBytes { _ = ccurl_easy_setopt_blob(easy, option, $0.baseAddress, $0.count) }
    }
}
