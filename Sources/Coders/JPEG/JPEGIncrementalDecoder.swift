import Foundation
import WebImageCore

extension JPEGCoder: ProgressiveImageCoder {
    public func canDecodeIncrementally(_ data: Data) -> Bool { ImageFormat.detect(data) == .jpeg }

    public func makeIncrementalDecoder(options: DecodeOptions) -> any IncrementalImageDecoder {
        JPEGIncrementalDecoder(options: options)
    }
}

/// Shows a JPEG while it downloads by decoding the bytes received so far: libjpeg renders the rows of
/// a baseline file that have arrived, and for a progressive file every scan that has arrived (a blurry
/// whole picture that sharpens), filling the rest with gray.
///
/// Each partial image re-decodes the prefix, so one is made only when something new can be shown: a
/// new progressive scan (an SOS marker) or, for baseline files, an eighth more of the data.
final class JPEGIncrementalDecoder: IncrementalImageDecoder {
    private let options: DecodeOptions
    private var data = Data()
    private var scansSeen = 0
    private var decodedAtLength = 0
    private var lastPartial: Image?

    init(options: DecodeOptions) { self.options = options }

    func append(_ bytes: Data) throws(ImageError) {
        // Count SOS markers (FF DA) in the new bytes, including one split across the boundary.
        let previousLast = data.last
        data.append(bytes)
        var previous = previousLast
        for byte in bytes {
            if previous == 0xFF && byte == 0xDA { scansSeen += 1 }
            previous = byte
        }
        if data.count >= 2 && !(data[data.startIndex] == 0xFF && data[data.startIndex + 1] == 0xD8) {
            throw .badImageData(reason: "JPEG: not a JPEG stream")
        }
    }

    private var scansAtLastDecode = 0

    func partialImage() -> Image? {
        let grewEnough = data.count - decodedAtLength >= max(1024, data.count / 8)
        guard scansSeen > 0, scansSeen > scansAtLastDecode || grewEnough else { return lastPartial }
        var partialOptions = options
        partialOptions.allowPartialImage = true
        // A prefix cut inside a marker fails to parse; that costs little, and the next call tries again.
        guard var image = try? JPEGCoder().decode(data, options: partialOptions) else { return lastPartial }
        image.isIncomplete = true
        lastPartial = image
        scansAtLastDecode = scansSeen
        decodedAtLength = data.count
        return lastPartial
    }

    func finish() throws(ImageError) -> Image {
        try JPEGCoder().decode(data, options: options)
    }
}
