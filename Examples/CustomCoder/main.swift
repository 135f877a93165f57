// CustomCoder: write a coder for a format SwiftWebImage does not ship (PPM), register it through the
// same public API the built-in coders use, and load a PPM file through the image manager by URL.
import Foundation
import WebImageCore
import WebImageFileLoader
import WebImageMemoryCache

// 1. Register the coder and a loader, exactly as a plugin of our own would be.
ImageCodersManager.shared.addCoder(PPMCoder())
ImageLoadersManager.shared.addLoader(FileLoader())
ImageCachesManager.shared.addCache(MemoryCache())

// 2. Make a PPM file: a 64x48 gradient, written with the coder's own encoder.
var bytes: [UInt8] = []
for y in 0..<48 {
    for x in 0..<64 { bytes += [UInt8(x * 4), UInt8(y * 5), 128] }
}
let gradient = Image(pixels: PixelBuffer(width: 64, height: 48, layout: .rgb8, bytes: bytes))
let file = FileManager.default.temporaryDirectory.appendingPathComponent("custom-coder-\(getpid()).ppm")
try ImageCodersManager.shared.encode(gradient, as: .ppm, options: EncodeOptions()).write(to: file)
defer { try? FileManager.default.removeItem(at: file) }

// 3. Load it by URL: the manager sniffs the bytes and picks our coder.
let result = try await ImageManager.shared.image(for: file)
print(
    "loaded \(file.lastPathComponent): format \(result.image.format), \(result.image.width)x\(result.image.height), from \(result.cacheType == .none ? "file" : "\(result.cacheType)")"
)
let pixel = result.image.pixels.rgba(x: 10, y: 20)
print("pixel (10, 20) = rgb(\(pixel.r), \(pixel.g), \(pixel.b))")

// 4. Again, as a 16 px thumbnail; the cache keeps it under its own key.
var context = ImageContext()
context.thumbnailPixelSize = PixelSize(16)
let thumbnail = try await ImageManager.shared.image(for: file, context: context)
print("thumbnail: \(thumbnail.image.width)x\(thumbnail.image.height)")
let again = try await ImageManager.shared.image(for: file)
print("second load came from: \(again.cacheType)")
