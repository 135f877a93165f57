import Foundation

/// Stops a compressed response whose decoded body grows too fast for the bytes received: the
/// decompression-ratio cap of ``HTTPContentDecoding``. One per response head; event thread only.
struct DecompressionGuard {
    /// The cap, for the error.
    let maxRatio: Int
    private let minimumBytes: Int
    /// Received bytes libcurl may not have counted yet when the body callback runs: for a chunked body
    /// it updates its count after decoding a whole read, so one read (the receive buffer) may be missing.
    private let uncountedAllowance: Int64

    /// A guard for a response with these header fields (names lowercased), or nil when its body is not
    /// decoded (no compressed coding, decoding off, or no cap).
    init?(headers: [String: String], configuration: HTTPContentDecoding) {
        guard let ratio = configuration.maxDecompressionRatio,
            Self.isDecoded(headers: headers, configuration: configuration)
        else { return nil }
        let transfer = Self.codings(headers["transfer-encoding"])
        maxRatio = max(1, ratio)
        minimumBytes = max(0, configuration.ratioCheckMinimumBytes)
        uncountedAllowance = transfer.contains("chunked") ? Int64(HTTPContentDecoding.receiveBufferSize) : 0
    }

    /// Whether libcurl decodes the body of a response with these header fields (names lowercased):
    /// a compressed content coding with decoding on, or a compressed transfer coding that was asked for.
    static func isDecoded(headers: [String: String], configuration: HTTPContentDecoding) -> Bool {
        let content = codings(headers["content-encoding"])
        let transfer = codings(headers["transfer-encoding"])
        return (configuration.isEnabled && content.contains { $0 != "identity" })
            || (configuration.requestsCompressedTransfer && transfer.contains { $0 != "chunked" && $0 != "identity" })
    }

    /// Whether `decoded` body bytes from `received` bytes counted by libcurl break the cap.
    func isExceeded(decoded: Int, received: Int64) -> Bool {
        guard decoded > minimumBytes else { return false }
        let wire = max(1, received + uncountedAllowance)
        return Int64(decoded) > wire * Int64(maxRatio)
    }

    /// The codings listed in a header value, lowercased ("gzip, chunked" -> ["gzip", "chunked"]).
    private static func codings(_ value: String?) -> [String] {
        guard let value else { return [] }
        return value.lowercased().split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
    }
}
