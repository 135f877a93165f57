import Foundation
import Testing

@testable import WebImageCore

/// A key declared outside Core, the way a plugin declares its own.
enum RetryBudgetKey: ImageContextKey { static let defaultValue = 0 }
extension ImageContext {
    var retryBudget: Int {
        get { self[RetryBudgetKey.self] }
        set { self[RetryBudgetKey.self] = newValue }
    }
}

@Suite("Formats, context and options")
struct VocabularyTests {
    static let signatures: [(String, [UInt8], ImageFormat)] = [
        ("jpeg", [0xFF, 0xD8, 0xFF, 0xE0, 0, 0x10], .jpeg),
        ("png", [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0], .png),
        ("gif87", Array("GIF87a".utf8) + [0, 0], .gif),
        ("gif89", Array("GIF89a".utf8) + [0, 0], .gif),
        ("webp", Array("RIFF".utf8) + [0, 0, 0, 0] + Array("WEBPVP8 ".utf8), .webp),
        ("tiff-le", [0x49, 0x49, 0x2A, 0x00, 8, 0], .tiff),
        ("tiff-be", [0x4D, 0x4D, 0x00, 0x2A, 0, 8], .tiff),
        ("heic", [0, 0, 0, 0x18] + Array("ftypheic".utf8) + [0, 0, 0, 0] + Array("mif1heic".utf8), .heic),
        ("heif", [0, 0, 0, 0x10] + Array("ftypmif1".utf8) + [0, 0, 0, 0], .heif),
        ("avif", [0, 0, 0, 0x1C] + Array("ftypavif".utf8) + [0, 0, 0, 0] + Array("avifmif1miaf".utf8), .avif),
        ("bmp", Array("BM".utf8) + [UInt8](repeating: 0, count: 20), .bmp),
        ("ico", [0, 0, 1, 0, 1, 0, 16, 16], .ico),
        ("svg", Array("<?xml version=\"1.0\"?>\n<svg xmlns=\"http://www.w3.org/2000/svg\"/>".utf8), .svg),
        ("pdf", Array("%PDF-1.7".utf8), .pdf),
        ("jxl-codestream", [0xFF, 0x0A, 0, 0], .jpegXL),
        ("jxl-container", [0, 0, 0, 0x0C, 0x4A, 0x58, 0x4C, 0x20, 0x0D, 0x0A, 0x87, 0x0A], .jpegXL),
        ("text", Array("hello world".utf8), .undefined),
        ("empty", [], .undefined),
    ]

    @Test(arguments: signatures.map(\.0))
    func formatIsDetectedFromLeadingBytes(name: String) {
        let (_, bytes, format) = Self.signatures.first { $0.0 == name }!
        #expect(ImageFormat.detect(Data(bytes)) == format)
    }

    @Test func animatedWebPIsRecognisedFromTheVP8XFlag() {
        var header = Array("RIFF".utf8) + [0, 0, 0, 0] + Array("WEBPVP8X".utf8) + [10, 0, 0, 0]
        header += [0x02, 0, 0, 0, 0, 0, 0, 0, 0, 0]
        #expect(ImageFormat.isAnimatedWebP(Data(header)))
        header[20] = 0x10
        #expect(!ImageFormat.isAnimatedWebP(Data(header)))
    }

    @Test func customFormatsAreEqualByIdentifier() {
        let qoi = ImageFormat("qoi", mimeType: "image/qoi")
        #expect(qoi == ImageFormat("qoi"))
        #expect(qoi != .png)
        #expect(ImageFormat.fromFileExtension("JPG") == .jpeg)
    }

    @Test func contextKeysAreTypedAndExtensible() {
        var context = ImageContext()
        #expect(context.retryBudget == 0)
        #expect(!context.contains(RetryBudgetKey.self))
        context.retryBudget = 3
        context.thumbnailPixelSize = PixelSize(64)
        context.storeCacheType = .memory
        #expect(context.retryBudget == 3)
        #expect(context.thumbnailPixelSize == PixelSize(64))
        var other = ImageContext()
        other.retryBudget = 5
        let merged = context.merging(other)
        #expect(merged.retryBudget == 5 && merged.storeCacheType == .memory)
    }

    @Test func decodeOptionsFollowOptionsContextAndURLScale() {
        var context = ImageContext()
        context.thumbnailPixelSize = PixelSize(width: 10, height: 20)
        context.preserveAspectRatio = false
        let options = context.decodeOptions(
            for: [.decodeFirstFrameOnly, .ignoreOrientation],
            url: URL(string: "https://x/icon@2x.png"))
        #expect(options.thumbnailPixelSize == PixelSize(width: 10, height: 20))
        #expect(!options.preserveAspectRatio && options.firstFrameOnly && !options.applyOrientation)
        #expect(options.scale == 2)
    }

    @Test func cacheKeysForTransformersAndThumbnails() {
        #expect(CacheKey.transformed("https://a/b/c.png", transformerKey: "round") == "https://a/b/c-round.png")
        #expect(CacheKey.transformed("https://a/b/c.png?x=1", transformerKey: "round") == "https://a/b/c.png?x=1-round")
        #expect(CacheKey.transformed("plain-key", transformerKey: "t") == "plain-key-t")
        #expect(
            CacheKey.thumbnailed("k", size: PixelSize(width: 3, height: 4), preserveAspectRatio: true)
                == "k-Thumbnail(3x4,1)")
    }

    @Test func permanentFailuresAreTheOnesWorthBlocking() {
        #expect(ImageError.isPermanentFailure(.invalidStatusCode(404)))
        #expect(ImageError.isPermanentFailure(.pluginFailure(message: "no such asset", isRetryable: false)))
        #expect(!ImageError.isPermanentFailure(.pluginFailure(message: "backend busy", isRetryable: true)))
        #expect(ImageError.isPermanentFailure(.badImageData(reason: "x")))
        #expect(!ImageError.isPermanentFailure(.invalidStatusCode(429)))
        #expect(!ImageError.isPermanentFailure(.cancelled))
        #expect(!ImageError.isPermanentFailure(.timeout))
        #expect(!ImageError.isPermanentFailure(.loadingFailed(LoadingFailure(message: "dns", isRetryable: false))))
        #expect(ImageError.isPermanentFailure(.invalidStatusCode(410)))
        for transient in [401, 403, 408, 500, 502, 503, 504] {
            #expect(!ImageError.isPermanentFailure(.invalidStatusCode(transient)), "\(transient)")
        }
    }
}

@Suite("Scale-down option")
struct ScaleDownTests {
    @Test func scaleDownLargeImagesBecomesAThumbnailLimitUnlessOneIsGiven() {
        let plain = ImageContext().decodeOptions(for: [.scaleDownLargeImages])
        #expect(plain.thumbnailPixelSize == PixelSize(DecodeOptions.scaleDownLimit) && plain.preserveAspectRatio)
        var context = ImageContext()
        context.thumbnailPixelSize = PixelSize(10)
        #expect(context.decodeOptions(for: [.scaleDownLargeImages]).thumbnailPixelSize == PixelSize(10))
        #expect(ImageContext().decodeOptions(for: []).thumbnailPixelSize == nil)
    }
}
