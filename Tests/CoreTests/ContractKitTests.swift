import Foundation
import Testing
import WebImageCore
import WebImageTestSupport
import WebImageTesting

/// A coder that breaks two duties: it ignores the pixel limit and the thumbnail size.
private struct CarelessCoder: ImageCoder {
    var decodableFormats: [ImageFormat] { [.raw] }
    func canDecode(_ data: Data) -> Bool { RawImageCoder().canDecode(data) }
    func decode(_ data: Data, options: DecodeOptions) throws(ImageError) -> Image {
        try RawImageCoder().decode(data, options: DecodeOptions())
    }
}

/// A loader that breaks two duties: it completes twice and never asks the request modifier.
private struct CarelessLoader: ImageLoader {
    func canRequestImage(for url: URL) -> Bool { true }
    func requestImage(
        with url: URL, options: ImageOptions, context: ImageContext, progress: LoadProgressHandler?,
        completion: @escaping @Sendable (Result<LoadedImage, ImageError>) -> Void
    ) -> any ImageOperation {
        let data = RawImageCoder.solid()
        DispatchQueue.global().async {
            completion(.success(LoadedImage(data: data)))
            completion(.success(LoadedImage(data: data)))
        }
        return NoOperation()
    }
}

private final class NoOperation: ImageOperation {
    func cancel() {}
    var isCancelled: Bool { false }
}

@Suite("The testing kit finds broken plugins")
struct ContractKitTests {
    @Test func aCoderIgnoringLimitsAndThumbnailsIsReported() {
        let sample = RawImageCoder.solid(width: 64, height: 64)
        let violations = CoderContract(coder: CarelessCoder(), samples: [sample]).violations()
        #expect(Set(violations.map(\.duty)) == ["pixel limit", "thumbnail size"])
        // The same checks pass for the coder that keeps its duties.
        #expect(CoderContract(coder: RawImageCoder(), samples: [sample]).violations().isEmpty)
    }

    @Test func aLoaderCompletingTwiceAndSkippingTheModifierIsReported() async {
        var contract = LoaderContract(loader: CarelessLoader(), url: URL(string: "test://host/a.raw")!)
        contract.concurrentLoads = 4
        contract.timeout = .seconds(5)
        let duties = Set(await contract.violations().map(\.duty))
        #expect(duties.contains("completion"))
        #expect(duties.contains("request modifier"))
    }
}

/// A read-only cache: images bundled with the program, answered by key. It writes only the two queries.
private struct BundledImages: ImageCache {
    let images: [String: Image]

    func queryImage(
        forKey key: String, options: ImageOptions, context: ImageContext,
        cacheType: ImageCacheType
    ) async -> CacheQueryResult? {
        images[key].map { CacheQueryResult(image: $0, cacheType: .disk) }
    }

    func containsImage(forKey key: String, cacheType: ImageCacheType) async -> ImageCacheType {
        images[key] == nil ? .none : .disk
    }
}

@Suite("Read-only caches")
struct ReadOnlyCacheTests {
    @Test func aCacheWithOnlyQueriesServesHitsAndIgnoresStores() async throws {
        let url = Harness.url("bundled.raw")
        let bundled = Image(pixels: PixelBuffer(width: 2, height: 2, layout: .gray8, bytes: [1, 2, 3, 4]))
        let loader = TestLoader()
        loader.serve(RawImageCoder.solid(width: 9, height: 9), at: Harness.url("downloaded.raw"))
        let manager = ImageManager(
            cache: BundledImages(images: [url.absoluteString: bundled]), loader: loader,
            coders: ImageCodersManager(coders: [RawImageCoder()]))
        let hit = try await manager.image(for: url)
        #expect(hit.cacheType == .disk && hit.image.width == 2)
        #expect(loader.requestCount == 0)
        // A download is answered but not kept: the cache stores nothing.
        let downloaded = try await manager.image(for: Harness.url("downloaded.raw"), options: [.waitStoreCache])
        #expect(downloaded.image.width == 9)
        let again = try await manager.image(for: Harness.url("downloaded.raw"))
        #expect(again.cacheType == .none)
    }
}
