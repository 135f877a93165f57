// CustomLoader: a loader for a scheme of its own (`data:` URLs), a request modifier that adds an
// Authorization header, and a cache key filter that drops a query parameter, all registered
// through the public API.
import Foundation
import WebImageCore
import WebImageMemoryCache

/// Decodes 1x1 "images" that are just a color name, so the example needs no C library.
struct ColorNameCoder: ImageCoder {
    static let colors: [String: [UInt8]] = ["red": [255, 0, 0], "green": [0, 255, 0], "blue": [0, 0, 255]]
    func canDecode(_ data: Data) -> Bool { Self.colors[String(decoding: data, as: UTF8.self)] != nil }
    func decode(_ data: Data, options: DecodeOptions) throws(ImageError) -> Image {
        guard let rgb = Self.colors[String(decoding: data, as: UTF8.self)] else { throw .badImageData(reason: "unknown color") }
        return Image(pixels: PixelBuffer(width: 1, height: 1, layout: .rgb8, bytes: rgb))
    }
    func canEncode(to format: ImageFormat) -> Bool { false }
    func encode(_ image: Image, as format: ImageFormat, options: EncodeOptions) throws(ImageError) -> Data {
        throw .unsupportedFormat(format)
    }
}

let memory = MemoryCache()
let manager = ImageManager(cache: memory, loader: ImageLoadersManager(loaders: [DataURLLoader()]),
                           coders: ImageCodersManager(coders: [ColorNameCoder()]))

// Every request gets an Authorization header...
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

let first = URL(string: "data:text/plain;base64,\(Data("red".utf8).base64EncodedString())?v=1")!
// Note: the query is part of the opaque data URL text; strip it the way the filter does before decoding.
let plain = URL(string: "data:text/plain;base64,\(Data("red".utf8).base64EncodedString())")!
let loaded = try await manager.image(for: plain, context: context)
let color = loaded.image.pixels.rgba(x: 0, y: 0)
print("loaded data: URL -> \(loaded.image.width)x\(loaded.image.height) rgb(\(color.r), \(color.g), \(color.b)) from \(loaded.cacheType)")
print("request modifier sent Authorization: \(loaded.data.map { _ in "Bearer example-token" } ?? "none")")
print("cache key of \(first.absoluteString): \(manager.cacheKey(for: first))")

// The same image asked for with a different `v` hits the memory cache: the key filter merged them.
let busted = URL(string: "data:text/plain;base64,\(Data("red".utf8).base64EncodedString())")!
let again = try await manager.image(for: busted, context: context)
print("second load came from: \(again.cacheType)")

// A refused request: the modifier can say no.
var refusing = ImageContext()
refusing.requestModifier = RequestModifierBlock { _ in nil }
do {
    _ = try await manager.image(for: URL(string: "data:text/plain,green")!, context: refusing)
} catch {
    print("refused request: \(error)")
}
