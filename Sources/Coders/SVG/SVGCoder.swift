internal import CSVG
import Foundation
import WebImageCore

/// Rasterises SVG with librsvg (Debian's), so vector sources can be resized, converted and cached like
/// any other image. Decoding only: SVG is not an output format (see ``SVGSanitizer`` for answering an SVG
/// as SVG).
///
/// The image is drawn at the document's size (its `width` and `height` at 96 DPI, else its viewBox's,
/// else 300 x 150 as browsers do), or straight at the thumbnail size when one is asked for, so a small
/// output of a large drawing never draws the large one. External resources are never loaded: the
/// document has no base file. The drawn size is checked against the pixel budget before any pixel is
/// allocated; librsvg's own limits bound the XML and the element count.
public struct SVGCoder: ImageCoder {
    /// An SVG coder.
    public init() {}

    /// Registers an SVG coder with the shared coders manager.
    public static func register() { ImageCodersManager.shared.addCoder(SVGCoder()) }

    /// The size browsers give an SVG without width, height or viewBox.
    public static let defaultSize = PixelSize(width: 300, height: 150)

    public var decodableFormats: [ImageFormat] { [.svg] }

    public func canDecode(_ data: Data) -> Bool { ImageFormat.detect(data) == .svg }

    public func canEncode(to format: ImageFormat) -> Bool { false }

    public func decode(_ data: Data, options: DecodeOptions) throws(ImageError) -> Image {
        var message = [CChar](repeating: 0, count: 200)
        let document: OpaquePointer? = data.withUnsafeBytes { bytes in
            csvg_open(bytes.baseAddress?.assumingMemoryBound(to: UInt8.self), bytes.count, &message)
        }
        guard let document else { throw .badImageData(reason: "SVG: " + Self.text(message)) }
        defer { csvg_close(document) }
        var width = 0.0, height = 0.0
        csvg_size(document, &width, &height)
        let intrinsic = Self.pixelSize(width: width, height: height)
        // A vector drawing is drawn at the size it will be shown: the thumbnail box, when there is one.
        let size = options.outputSize(width: intrinsic.width, height: intrinsic.height)
        try options.checkDimensions(width: size.width, height: size.height)
        let stride = size.width * 4
        var pixels = [UInt8](repeating: 0, count: stride * size.height)
        let status = pixels.withUnsafeMutableBufferPointer { buffer in
            csvg_render(document, Int32(size.width), Int32(size.height), buffer.baseAddress, stride, &message)
        }
        guard status == 0 else { throw .badImageData(reason: "SVG: " + Self.text(message)) }
        return Image(
            pixels: PixelBuffer(width: size.width, height: size.height, layout: .rgba8, bytes: pixels), format: .svg)
    }

    public func encode(_ image: Image, as format: ImageFormat, options: EncodeOptions) throws(ImageError) -> Data {
        throw .unsupportedFormat(format)
    }

    /// Whole pixels for a size librsvg gave in fractional pixels (at least 1 each); the browsers' default
    /// for a document without any size.
    static func pixelSize(width: Double, height: Double) -> PixelSize {
        guard width.isFinite, height.isFinite, width > 0, height > 0 else { return defaultSize }
        // Sizes past Int's range are clamped; the budget check refuses them anyway.
        let clamp = { (value: Double) in Int(min(value.rounded(), Double(Int32.max))) }
        return PixelSize(width: max(1, clamp(width)), height: max(1, clamp(height)))
    }

    private static func text(_ message: [CChar]) -> String {
        message.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
    }
}
