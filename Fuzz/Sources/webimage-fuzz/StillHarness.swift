import Foundation
import WebImageCore

/// Decodes the input as a still with one coder.
enum StillHarness {
    static func run(_ data: Data, coder: any ImageCoder, options: DecodeOptions) {
        guard let image = try? coder.decode(data, options: options) else { return }
        // Touch the pixels so a buffer shorter than its dimensions claim shows up under AddressSanitizer.
        FrameCheck.touch(image.pixels)
    }
}

/// Reads every pixel row of a buffer once.
enum FrameCheck {
    static func touch(_ pixels: PixelBuffer) {
        guard pixels.width > 0, pixels.height > 0 else { return }
        let rowBytes = pixels.width * pixels.layout.bytesPerPixel
        var sum: UInt8 = 0
        pixels.bytes.withUnsafeBufferPointer { buffer in
            for row in 0..<pixels.height {
                let start = row * pixels.bytesPerRow
                sum &+= buffer[start] &+ buffer[start + rowBytes - 1]
            }
        }
        blackHole(sum)
    }

    @inline(never)
    static func blackHole(_ value: UInt8) {
        _ = value
    }
}
