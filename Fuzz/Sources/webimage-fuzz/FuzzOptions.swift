import Foundation
import WebImageCore

/// Decode options for one fuzz input.
enum FuzzOptions {
    /// 4 MP per frame: large enough for every parsing path (interlacing, DCT scaling, tiles), small enough
    /// that the fuzzer spends its time parsing rather than filling huge buffers.
    static let maxPixelCount = 4_000_000

    /// Thumbnail edge for the inputs decoded as thumbnails: small, so downsampling paths run.
    static let thumbnailEdge = 48

    /// One of four option sets, picked by the input's length so each input always decodes the same way
    /// (a crasher reproduces) while the fuzzer still reaches all four by growing or shrinking inputs.
    static func decodeOptions(for data: Data) -> DecodeOptions {
        var options = DecodeOptions(maxPixelCount: maxPixelCount)
        switch data.count % 4 {
        case 1: options.thumbnailPixelSize = PixelSize(thumbnailEdge)
        case 2: options.allowPartialImage = true
        case 3: options.firstFrameOnly = true; options.applyOrientation = false
        default: break
        }
        return options
    }
}
