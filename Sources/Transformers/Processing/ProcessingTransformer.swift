import WebImageCore

/// The transformers a ``ProcessingOptions`` value builds, applied one after another to each frame.
///
/// One `FrameTransformer` rather than a `PipelineTransformer`: an animation gets one lazy layer (each
/// frame runs through every step when it is asked for), and `FrameTransformer.transformed(_:)` reports
/// the first step that fails instead of silently keeping the original.
public struct ProcessingTransformer: FrameTransformer {
    /// The steps, in the order they run.
    public let steps: [any FrameTransformer]
    /// Asked before every step of every frame; once it answers true the work stops with
    /// `ImageError.cancelled`. A server passes its request's deadline or disconnect here, so a request
    /// nobody waits for no longer costs more than the step (of one frame) it is in.
    public let isCancelled: (@Sendable () -> Bool)?

    /// The steps in order; an empty list changes nothing. `isCancelled`, when given, stops the work
    /// between steps and between frames.
    public init(steps: [any FrameTransformer], isCancelled: (@Sendable () -> Bool)? = nil) {
        self.steps = steps
        self.isCancelled = isCancelled
    }

    /// The steps' keys joined in order, so two different pipelines never share a key.
    public var transformerKey: String { "process(" + steps.map(\.transformerKey).joined(separator: "/") + ")" }

    public func transformFrame(_ pixels: PixelBuffer) throws(ImageError) -> PixelBuffer {
        var current = pixels
        for step in steps {
            if let isCancelled, isCancelled() { throw .cancelled }
            current = try step.transformFrame(current)
        }
        return current
    }
}
