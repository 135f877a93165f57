internal import CCurl
import WebImageCore

extension CurlErrorMapping {
    /// The typed TLS error for a libcurl result, or nil when `code` is not a TLS failure.
    /// `easy` is the finished transfer's handle, asked for OpenSSL's verification result.
    static func tlsError(for code: CURLcode, message: String, easy: UnsafeMutableRawPointer) -> ImageError? {
        switch code {
        case CURLE_PEER_FAILED_VERIFICATION:
            // libcurl checks the host name itself once OpenSSL verified the chain, and its verification
            // result then holds no X509 code; its messages for a wrong name all end in "target host name".
            if message.contains("target host name") { return .httpLoader(.tls(.hostnameMismatch), message: message) }
            var verifyResult = 0
            _ = ccurl_easy_getinfo_long(easy, CURLINFO_SSL_VERIFYRESULT, &verifyResult)
            return .httpLoader(.tls(.untrustedCertificate(verifyResult: verifyResult)), message: message)
        case CURLE_SSL_ISSUER_ERROR, CURLE_SSL_INVALIDCERTSTATUS:
            return .httpLoader(.tls(.untrustedCertificate(verifyResult: 0)), message: message)
        case CURLE_SSL_PINNEDPUBKEYNOTMATCH:
            return .httpLoader(.tls(.pinnedKeyMismatch), message: message)
        case CURLE_SSL_CONNECT_ERROR, CURLE_SSL_CIPHER:
            return .httpLoader(.tls(.handshakeFailed), message: message)
        case CURLE_RECV_ERROR where isTLSAlert(message):
            // With TLS 1.3 the client finishes its side of the handshake first, so a server refusing (or
            // missing) the client certificate is seen on the first read, as an alert.
            return .httpLoader(.tls(.handshakeFailed), message: message)
        case CURLE_SSL_CERTPROBLEM, CURLE_SSL_CACERT_BADFILE, CURLE_SSL_CRL_BADFILE, CURLE_SSL_ENGINE_NOTFOUND,
            CURLE_SSL_ENGINE_SETFAILED, CURLE_SSL_ENGINE_INITFAILED:
            return .httpLoader(.tls(.localConfiguration), message: message)
        default:
            return nil
        }
    }

    /// Whether libcurl's text reports a TLS alert from the peer (OpenSSL's "... alert ..." reasons,
    /// such as "tlsv13 alert certificate required").
    private static func isTLSAlert(_ message: String) -> Bool {
        message.contains("SSL") && message.contains(" alert ")
    }
}
