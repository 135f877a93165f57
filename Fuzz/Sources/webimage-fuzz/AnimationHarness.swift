import Foundation
import WebImageCore

/// Decodes the input as an animation, composes every frame (frames are lazy, so this is what runs the
/// per-frame decoding), and encodes small animations back so the streaming encoders run too.
enum AnimationHarness {
    /// Canvas pixels composed per input at most: two full 4 MP frames. Without it one input with many
    /// large frames would spend the fuzzer's time composing (a 1 MP, 8-frame seed took half a CPU second
    /// per run under AddressSanitizer) instead of parsing; the coders' own frame budgets are tested in the
    /// test suite, not here.
    static let composedPixelBudget = 8_000_000

    /// Animations up to this many pixels over all frames are encoded back in their own format.
    static let reencodedPixelLimit = 256 * 1024

    static func run(_ data: Data, coder: any ImageCoder, format: ImageFormat, options: DecodeOptions) {
        guard let image = try? coder.decode(data, options: options) else { return }
        FrameCheck.touch(image.pixels)
        guard let animation = image.animation else { return }
        let canvasPixels = max(1, image.width * image.height)
        let framesWithinBudget = min(animation.frameCount, max(1, composedPixelBudget / canvasPixels))
        for index in 0..<framesWithinBudget {
            // A damaged later frame throws; the frames before it stay valid.
            guard let frame = try? animation.frame(at: index) else { break }
            FrameCheck.touch(frame.pixels)
        }
        if canvasPixels * animation.frameCount <= reencodedPixelLimit {
            _ = try? coder.encode(image, as: format, options: EncodeOptions())
        }
    }
}
