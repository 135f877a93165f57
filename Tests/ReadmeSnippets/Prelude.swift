import Foundation
import WebImage
import WebImageTransformers

// The names README.md's examples use without declaring them: stand-ins of the reader's own values and
// plugins, just enough for the examples to compile (scripts/checks/readme-snippets explains the build).

/// The URL the examples load.
let url = URL(string: "https://example.com/cat.webp")!
/// The cache directory of the hand-wired manager example.
let cacheDirectory = FileManager.default.temporaryDirectory.appendingPathComponent("readme-example")
/// A placeholder image.
let spinner = WebImage.Image(pixels: PixelBuffer(width: 1, height: 1, layout: .gray8, bytes: [0]))
/// A PPM file for the testing-kit example.
let ppmFile = Data("P6 1 1 255 ".utf8) + Data([0, 0, 0])
/// The view of the target example.
let view = ExampleView()

/// A target that shows nothing.
final class ExampleView: WebImageTarget {
    func setImage(_ image: WebImage.Image?) {}
}

/// The reader's own coder in the registration examples.
struct PPMCoder: ImageCoder {
    var decodableFormats: [ImageFormat] { [ImageFormat("ppm")] }
    func canDecode(_ data: Data) -> Bool { data.starts(with: Array("P6".utf8)) }
    func decode(_ data: Data, options: DecodeOptions) throws(ImageError) -> WebImage.Image {
        throw .unsupportedFormat(ImageFormat("ppm"))
    }
}

/// The reader's own loader in the registration examples.
struct AssetStoreLoader: ImageLoader {
    func canRequestImage(for url: URL) -> Bool { url.scheme == "asset" }
    func requestImage(
        with url: URL, options: ImageOptions, context: ImageContext, progress: LoadProgressHandler?,
        completion: @escaping @Sendable (Result<LoadedImage, ImageError>) -> Void
    ) -> any ImageOperation {
        completion(.failure(.pluginFailure(message: "no asset store in the README", isRetryable: false)))
        return ImageLoadOperationStandIn()
    }
}

/// The operation the stand-in loader returns.
final class ImageLoadOperationStandIn: ImageOperation {
    func cancel() {}
    var isCancelled: Bool { false }
}
