import Foundation
import WebImageCore
import WebImageMemoryCache

/// ``ImageManager`` itself, with the plugins reduced to doubles that do almost nothing, so what is
/// timed is the load flow (context, keys, cache lookups, bookkeeping, logs, metrics, spans):
/// - memory-hit loads: `image(for:)` answered from a ``MemoryCache``;
/// - full loads: a cache miss, a loader double that answers at once with 16 bytes, a coder double that
///   turns them into an 8×8 image, and the store to memory.
/// Compiles against the API before and after the observability work, so the two can be compared.
struct ManagerBenchmarks {
    /// Loads per run: enough for a run to take a good fraction of a second on a loaded machine.
    static let memoryHits = 200_000
    static let fullLoads = 50_000
    static let rounds = 3

    /// Nanoseconds per memory-hit load and per full load, best of ``rounds`` runs each.
    func measure() async -> (memoryHit: Double, fullLoad: Double) {
        let url = URL(string: "bench://images/hit.raw")!
        let cache = MemoryCache()
        let coders = ImageCodersManager()
        coders.addCoder(BenchRawCoder())
        let manager = ImageManager(cache: cache, loader: InstantLoader(), coders: coders)
        _ = try? await manager.image(for: url)

        let hits = await best { for _ in 0..<Self.memoryHits { _ = try? await manager.image(for: url) } }
        let urls = (0..<Self.fullLoads).map { URL(string: "bench://images/\($0).raw")! }
        var context = ImageContext()
        context.storeCacheType = .memory
        let full = await best {
            cache.removeAllImages()
            for url in urls { _ = try? await manager.image(for: url, context: context) }
        }
        return (hits / Double(Self.memoryHits) * 1e9, full / Double(Self.fullLoads) * 1e9)
    }

    private func best(_ body: () async -> Void) async -> Double {
        var best = Double.infinity
        for _ in 0..<Self.rounds {
            let start = ContinuousClock.now
            await body()
            let (s, a) = (ContinuousClock.now - start).components
            best = min(best, Double(s) + Double(a) / 1e18)
        }
        return best
    }
}

/// Answers every request at once, on the caller's thread, with the same 16 bytes.
private struct InstantLoader: ImageLoader {
    static let bytes = Data("BENCHRAW01234567".utf8)
    func canRequestImage(for url: URL) -> Bool { url.scheme == "bench" }
    func requestImage(
        with url: URL, options: ImageOptions, context: ImageContext, progress: LoadProgressHandler?,
        completion: @escaping @Sendable (Result<LoadedImage, ImageError>) -> Void
    ) -> any ImageOperation {
        completion(.success(LoadedImage(data: Self.bytes)))
        return FinishedOperation()
    }
    func shouldBlockFailedURL(_ url: URL, error: ImageError) -> Bool { false }
}

/// Decodes the loader double's bytes into an 8×8 image (no pixels are read).
private struct BenchRawCoder: ImageCoder {
    static let format = ImageFormat("bench-raw")
    var decodableFormats: [ImageFormat] { [Self.format] }
    func canDecode(_ data: Data) -> Bool { data.starts(with: Data("BENCHRAW".utf8)) }
    func decode(_ data: Data, options: DecodeOptions) throws(ImageError) -> Image {
        Image(pixels: PixelBuffer(width: 8, height: 8, layout: .rgba8), format: Self.format)
    }
    func canEncode(to format: ImageFormat) -> Bool { false }
    func encode(_ image: Image, as format: ImageFormat, options: EncodeOptions) throws(ImageError) -> Data {
        throw .unsupportedFormat(format)
    }
}
