import WebImageCore

/// The transformers a ``ProcessingOptions`` value builds, applied one after another to each frame.
///
/// One ``FrameTransformer`` rather than a `PipelineTransformer`: an animation gets one lazy layer (each
/// frame runs through every step when it is asked for), and ``FrameTransformer/transformed(_:)`` reports
/// the first step that fails instead of silently keeping the original.
public struct ProcessingTransformer: FrameTransformer {
    /// The steps, in the order they run.
    public let steps: [any FrameTransformer]

    /// The steps in order; an empty list changes nothing.
    public init(steps: [any FrameTransformer]) { self.steps = steps }

    /// The steps' keys joined in order, so two different pipelines never share a key.
    public var transformerKey: String { "process(" + steps.map(\.transformerKey).joined(separator: "/") + ")" }

    public func transformFrame(_ pixels: PixelBuffer) throws(ImageError) -> PixelBuffer {
        var current = pixels
        for step in steps { current = try step.transformFrame(current) }
        return current
    }
}
