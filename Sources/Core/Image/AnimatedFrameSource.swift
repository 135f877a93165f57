import Foundation

/// Composes the frames of one animation on demand; made by an ``AnimatedImageCoder``.
///
/// A source knows the animation's shape up front (frame count, loop count, durations) and composes
/// a frame only when asked. ``AnimatedFrames`` calls ``composeFrame(at:onto:)`` one call at a time,
/// moving forward from the nearest frame it kept, so a source never needs to restart from frame 0.
public protocol AnimatedFrameSource: Sendable {
    /// Width of the canvas every frame is drawn on.
    var canvasWidth: Int { get }
    /// Height of the canvas every frame is drawn on.
    var canvasHeight: Int { get }
    /// Number of frames.
    var frameCount: Int { get }
    /// Times the animation plays; 0 means forever.
    var loopCount: Int { get }
    /// How long frame `index` shows, after browser-style clamping.
    func duration(at index: Int) -> Duration
    /// Draws frame `index` onto `background` (the canvas frame `index - 1` left behind after its
    /// disposal; nil for frame 0, meaning a transparent canvas) and returns the composed frame and the
    /// canvas the next frame is drawn onto.
    func composeFrame(at index: Int, onto background: PixelBuffer?) throws -> ComposedFrame
}

/// What composing one frame produces.
public struct ComposedFrame: Sendable {
    /// The canvas as it shows while the frame is displayed.
    public var frame: PixelBuffer
    /// The canvas after the frame's disposal, which the next frame is drawn onto; nil when it is the
    /// same as ``frame`` (no disposal), which saves a canvas.
    public var nextBackground: PixelBuffer?

    /// A composed frame and the canvas its disposal leaves (nil: the frame itself).
    public init(frame: PixelBuffer, nextBackground: PixelBuffer?) {
        self.frame = frame
        self.nextBackground = nextBackground
    }
}
