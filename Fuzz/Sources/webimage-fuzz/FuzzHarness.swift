import Foundation
import WebImageBMPCoder
import WebImageCore
import WebImageGIFCoder
import WebImageICOCoder
import WebImageJPEGCoder
import WebImagePNGCoder
import WebImageTIFFCoder
import WebImageWebPCoder

/// One fuzz target: which coder (or the Redis reply reader) gets the input and how.
///
/// Every harness only requires that bad input ends in a thrown error (any error is fine; the fuzzer
/// looks for crashes, sanitizer reports, leaks, timeouts and memory over its limit).
enum FuzzHarness: String, CaseIterable {
    case png
    case apng
    case jpeg
    case webp
    case webpAnimated = "webp-animated"
    case gif
    case tiff
    case bmp
    case ico
    case pngIncremental = "png-incremental"
    case jpegIncremental = "jpeg-incremental"
    case webpIncremental = "webp-incremental"
    case redisReplies = "redis-replies"

    func run(_ data: Data) {
        if self == .redisReplies { return RedisReplyHarness.run(data) }
        let options = FuzzOptions.decodeOptions(for: data)
        switch self {
        case .png: StillHarness.run(data, coder: PNGCoder(), options: options)
        case .jpeg: StillHarness.run(data, coder: JPEGCoder(), options: options)
        case .webp: StillHarness.run(data, coder: WebPCoder(), options: options)
        case .apng: AnimationHarness.run(data, coder: APNGCoder(), format: .png, options: options)
        case .webpAnimated: AnimationHarness.run(data, coder: WebPCoder(), format: .webp, options: options)
        case .gif: AnimationHarness.run(data, coder: GIFCoder(), format: .gif, options: options)
        case .tiff: StillHarness.run(data, coder: TIFFCoder(), options: options)
        case .bmp: StillHarness.run(data, coder: BMPCoder(), options: options)
        case .ico: StillHarness.run(data, coder: ICOCoder(), options: options)
        case .pngIncremental: IncrementalHarness.run(data, coder: PNGCoder(), options: options)
        case .jpegIncremental: IncrementalHarness.run(data, coder: JPEGCoder(), options: options)
        case .webpIncremental: IncrementalHarness.run(data, coder: WebPCoder(), options: options)
        case .redisReplies: break
        }
    }

    /// The format whose seed files this harness starts from (`manifest.tsv`'s `format` column).
    var seedFormat: String {
        switch self {
        case .png, .apng, .pngIncremental: "png"
        case .jpeg, .jpegIncremental: "jpeg"
        case .webp, .webpAnimated, .webpIncremental: "webp"
        case .gif: "gif"
        case .tiff: "tiff"
        case .bmp: "bmp"
        case .ico: "ico"
        case .redisReplies: "redis"
        }
    }
}
