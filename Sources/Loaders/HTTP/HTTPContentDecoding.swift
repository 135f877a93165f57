internal import CCurl
import Foundation

/// How an ``HTTPLoader`` handles compressed responses (`Content-Encoding`, `Transfer-Encoding`), and
/// the cap that stops decompression bombs.
///
/// Bodies are decoded by libcurl before anything else sees them, so ``HTTPLoaderConfiguration/maxResponseSize``
/// counts decoded bytes and coders get the image itself.
public struct HTTPContentDecoding: Sendable, Hashable {
    /// Whether to send `Accept-Encoding` with every coding this libcurl decodes (gzip and deflate, plus
    /// br and zstd when libcurl is built with them, as Debian's is) and decode such bodies, as browsers
    /// do: a PNG served with `Content-Encoding: gzip` then loads. True by default; false sends
    /// `Accept-Encoding: identity`.
    public var isEnabled = true
    /// Largest ratio of decoded body bytes to bytes received (after TLS, before decoding) once the
    /// decoded body passes ``ratioCheckMinimumBytes``; beyond it the transfer stops with
    /// ``HTTPLoaderFailure/decompressionRatioExceeded(limit:)``. 100 by default: gzip over real images gains 1-3x and over text
    /// 5-10x, while a deflate bomb reaches about 1000x. Nil turns the check off.
    ///
    /// libcurl counts a read (up to `receiveBufferSize`, 256 KB) as received before it is decoded, and
    /// for chunked bodies only after, so the check allows one read: whatever the framing, a bomb stops
    /// within about 100 x 256 KB (26 MB) decoded, below the default size limit.
    public var maxDecompressionRatio: Int? = 100
    /// Decoded bytes allowed before the ratio is checked. 1 MB by default: small bodies cannot hurt
    /// whatever their ratio, and a short compressed head should not be judged alone.
    public var ratioCheckMinimumBytes = 1024 * 1024
    /// Whether to ask for a compressed `Transfer-Encoding` (`TE: gzip`, `CURLOPT_TRANSFER_ENCODING`) and
    /// decode it; the same limits apply. False by default: few servers offer it, and browsers do not ask.
    public var requestsCompressedTransfer = false

    /// Decoding on, the 100x cap after 1 MB, no transfer-encoding request.
    public init() {}

    /// The size of libcurl's receive buffer the loader sets (`CURLOPT_BUFFERSIZE`): the most a single
    /// read brings in. Bigger reads mean fewer callbacks for large images; libcurl's default is 16 KB.
    static let receiveBufferSize = 256 * 1024
}

extension HTTPContentDecoding {
    /// The content codings this process's libcurl decodes, as `Accept-Encoding` names them: "deflate" and
    /// "gzip" with zlib, "br" with brotli, "zstd" with zstd (Debian 12's libcurl has all four).
    public static var supportedEncodings: [String] {
        _ = CurlGlobal.isInitialized
        guard let info = curl_version_info(ccurl_version_now) else { return [] }
        let features = info.pointee.features
        var names: [String] = []
        if features & CURL_VERSION_LIBZ != 0 { names += ["deflate", "gzip"] }
        if features & CURL_VERSION_BROTLI != 0 { names.append("br") }
        if features & CURL_VERSION_ZSTD != 0 { names.append("zstd") }
        return names
    }
}
