// CustomLoader: a loader for a scheme of its own (`asset://`, an in-memory asset store), a request
// modifier that adds an Authorization header, and a cache key filter that drops a query parameter,
// all through the public API.
import Foundation
import WebImageCore
import WebImageMemoryCache

/// Decodes "images" that are just a color name (1x1 pixel), so the example needs no C library.
struct ColorNameCoder: ImageCoder {
    static let colors: [String: [UInt8]] = ["red": [255, 0, 0], "green": [0, 255, 0], "blue": [0, 0, 255]]
    func canDecode(_ data: Data) -> Bool { Self.colors[String(decoding: data, as: UTF8.self)] != nil }
    func decode(_ data: Data, options: DecodeOptions) throws(ImageError) -> Image {
        guard let rgb = Self.colors[String(decoding: data, as: UTF8.self)] else {
            throw .badImageData(reason: "unknown color")
        }
        return Image(pixels: PixelBuffer(width: 1, height: 1, layout: .rgb8, bytes: rgb))
    }
    func canEncode(to format: ImageFormat) -> Bool { false }
    func encode(_ image: Image, as format: ImageFormat, options: EncodeOptions) throws(ImageError) -> Data {
        throw .unsupportedFormat(format)
    }
}

let assets = AssetStoreLoader()
assets.add(Data("red".utf8), named: "logo")
let manager = ImageManager(
    cache: MemoryCache(), loader: ImageLoadersManager(loaders: [assets]),
    coders: ImageCodersManager(coders: [ColorNameCoder()]))

// Every request carries an Authorization header...
var context = ImageContext()
context.requestModifier = RequestModifierBlock { request in
    var request = request
    request.headers["Authorization"] = "Bearer example-token"
    return request
}
// ...and the `v` query parameter (a cache-buster) does not change the cache key.
manager.settings.cacheKeyFilter = CacheKeyFilterBlock { url in
    guard var parts = URLComponents(url: url, resolvingAgainstBaseURL: false) else { return url.absoluteString }
    parts.queryItems = parts.queryItems?.filter { $0.name != "v" }
    if parts.queryItems?.isEmpty == true { parts.queryItems = nil }
    return parts.string ?? url.absoluteString
}

let first = URL(string: "asset://logo?v=1")!
let loaded = try await manager.image(for: first, context: context)
let color = loaded.image.pixels.rgba(x: 0, y: 0)
print(
    "loaded \(first.absoluteString) -> \(loaded.image.width)x\(loaded.image.height) rgb(\(color.r), \(color.g), \(color.b)) from loader"
)
print("the loader received Authorization: \(assets.sentHeaders.last?["Authorization"] ?? "none")")
print("cache key of \(first.absoluteString): \(manager.cacheKey(for: first))")

let second = URL(string: "asset://logo?v=2")!
let again = try await manager.image(for: second, context: context)
print("loaded \(second.absoluteString) from: \(again.cacheType) (requests sent: \(assets.sentHeaders.count))")

var refusing = ImageContext()
refusing.requestModifier = RequestModifierBlock { _ in nil }
do {
    _ = try await manager.image(for: URL(string: "asset://other")!, context: refusing)
} catch {
    print("refused request: \(error)")
}
