import Foundation

/// A transformer that works on one frame's pixels at a time.
///
/// Conforming types write only ``transformFrame(_:)``; the protocol supplies
/// ``ImageTransformer/transform(_:forKey:)``. A still is oriented upright first (when its EXIF orientation
/// is not applied yet), so geometry such as crops and gravity means what the viewer sees. An animated image
/// becomes a new animation whose frames are transformed one by one as they are asked for: no frame beyond
/// the poster is composed or transformed up front, and durations and the loop count carry over.
///
/// A frame transformer must give every frame of one size the same output size, so that an animation stays
/// one canvas size.
public protocol FrameTransformer: ImageTransformer {
    /// The transformed pixels of one frame (or of a still).
    func transformFrame(_ pixels: PixelBuffer) throws(ImageError) -> PixelBuffer
}

extension FrameTransformer {
    /// The transformed image, or nil when the transformation fails (the manager then keeps the original,
    /// as SDWebImage does). Use ``transformed(_:)`` to see the error.
    public func transform(_ image: Image, forKey key: String) -> Image? {
        try? transformed(image)
    }

    /// The transformed image; a still's pixels are transformed now, an animation's frames when asked for.
    public func transformed(_ image: Image) throws(ImageError) -> Image {
        guard let animation = image.animation else {
            return try transformedStill(image)
        }
        let source = TransformedFrameSource(
            base: animation, transformer: self,
            canvas: try transformFrame(image.pixels), durations: animation.durations)
        do {
            return try Image(
                animation: AnimatedFrames(source: source), format: image.format, scale: image.scale,
                metadata: image.metadata)
        } catch let error as ImageError {
            throw error
        } catch {
            throw .badImageData(reason: "\(error)")
        }
    }

    private func transformedStill(_ image: Image) throws(ImageError) -> Image {
        let upright =
            image.isOrientationApplied || image.orientation == .up
            ? image.pixels : image.pixels.applyingOrientation(image.orientation)
        return Image(
            pixels: try transformFrame(upright), format: image.format, orientation: image.orientation,
            isOrientationApplied: true, scale: image.scale, metadata: image.metadata,
            isIncomplete: image.isIncomplete)
    }
}

/// The frames of an animation passed through a ``FrameTransformer`` on demand.
///
/// Each frame comes from the original animation (which composes and caches it) and is transformed when
/// the wrapping `AnimatedFrames` asks for it; transformed frames need no background, so the composed
/// canvas is the frame itself.
struct TransformedFrameSource<Transformer: FrameTransformer>: AnimatedFrameSource {
    let base: AnimatedFrames
    let transformer: Transformer
    /// The transformed poster: its size is the canvas size of the new animation.
    let canvas: PixelBuffer
    /// The original frames' durations, read once so that the count and the durations agree.
    let durations: [Duration]

    var canvasWidth: Int { canvas.width }
    var canvasHeight: Int { canvas.height }
    var frameCount: Int { durations.count }
    var loopCount: Int { base.loopCount }
    func duration(at index: Int) -> Duration { durations[index] }

    func composeFrame(at index: Int, onto background: PixelBuffer?) throws -> ComposedFrame {
        if index == 0 { return ComposedFrame(frame: canvas, nextBackground: nil) }
        return ComposedFrame(frame: try transformer.transformFrame(base.frame(at: index).pixels), nextBackground: nil)
    }
}
