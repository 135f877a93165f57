import Foundation
import Synchronization

/// The frames of an animated ``Image``: decoded lazily through an ``AnimatedFrameSource`` and kept in a
/// small bounded cache, or held in memory when they were given or preloaded.
///
/// Asking for frame `n` composes forward from the nearest kept frame before `n` (frame 0 only when
/// nothing earlier is kept), so playing an animation composes each frame once. A downsampled animation
/// (a thumbnail) keeps small frames and a single full-size canvas, the one the next frame is drawn on.
public final class AnimatedFrames: Sendable {
    /// Number of composed frames kept by default besides the poster; each costs about two canvases.
    public static let defaultCachedFrameLimit = 2

    /// Number of frames.
    public let frameCount: Int
    /// Times the animation plays; 0 means forever.
    public let loopCount: Int
    /// Display duration of each frame in seconds.
    public let durations: [TimeInterval]

    private let source: (any AnimatedFrameSource)?
    /// When set, every composed frame is resampled to this size before it is returned or cached.
    private let outputSize: (width: Int, height: Int)?
    private let cachedFrameLimit: Int

    private struct Entry {
        var frame: PixelBuffer
        /// The full-size canvas the next frame is drawn onto (nil: the frame itself). Always nil for
        /// downsampled animations, which keep one canvas in ``State/lastCanvas`` instead.
        var nextBackground: PixelBuffer?
        var lastUse: UInt64
    }

    private struct State {
        var entries: [Int: Entry] = [:]
        var useCounter: UInt64 = 0
        /// Frames given in memory or preloaded; never evicted.
        var pinned: [PixelBuffer]?
        /// Downsampled animations only: the one full-size canvas kept, left by the last frame composed
        /// (after its disposal), which the next frame starts from. Cached thumbnails keep no canvas, so
        /// the memory held is this canvas plus the small frames.
        var lastCanvas: (index: Int, canvas: PixelBuffer)?
    }

    /// Guards the frame cache and serializes calls into `source`, which therefore never runs concurrently.
    private let state: Locked<State>

    /// Frames composed lazily by `source`; with `outputSize`, each frame is downsampled to that size
    /// (thumbnails of animations). Keeps at most `cachedFrameLimit` frames besides frame 0.
    public init(source: any AnimatedFrameSource, outputSize: (width: Int, height: Int)? = nil,
                cachedFrameLimit: Int = AnimatedFrames.defaultCachedFrameLimit) {
        self.source = source
        self.frameCount = source.frameCount
        self.loopCount = source.loopCount
        self.durations = (0..<source.frameCount).map { source.duration(at: $0) }
        self.outputSize = outputSize
        self.cachedFrameLimit = max(1, cachedFrameLimit)
        self.state = Locked(State())
    }

    /// Frames already in memory.
    public init(frames: [ImageFrame], loopCount: Int) {
        self.source = nil
        self.frameCount = frames.count
        self.loopCount = loopCount
        self.durations = frames.map(\.duration)
        self.outputSize = nil
        self.cachedFrameLimit = frames.count
        self.state = Locked(State(pinned: frames.map(\.pixels)))
    }

    /// Frame `index`, composed now if it is not cached.
    public func frame(at index: Int) throws -> ImageFrame {
        precondition(index >= 0 && index < frameCount, "frame \(index) is outside 0..<\(frameCount)")
        let pixels = try state.withLock { state -> PixelBuffer in
            if let pinned = state.pinned { return pinned[index] }
            return try compose(index, in: &state)
        }
        return ImageFrame(pixels: pixels, duration: durations[index])
    }

    /// Decodes every frame now and keeps them all (SDWebImage's `preloadAllFrames`).
    public func preloadAllFrames() throws {
        try state.withLock { state in
            guard state.pinned == nil else { return }
            var all: [PixelBuffer] = []
            all.reserveCapacity(frameCount)
            for index in 0..<frameCount {
                all.append(try compose(index, in: &state))
            }
            state.pinned = all
            state.entries.removeAll()
        }
    }

    /// Whether every frame is held in memory.
    public var isFullyLoaded: Bool { state.withLock { $0.pinned != nil } }

    /// Bytes held by cached frames and canvases.
    public var cachedByteCount: Int {
        state.withLock { state in
            if let pinned = state.pinned { return pinned.reduce(0) { $0 + $1.byteCount } }
            return state.entries.values.reduce(0) { $0 + $1.frame.byteCount + ($1.nextBackground?.byteCount ?? 0) }
                + (state.lastCanvas?.canvas.byteCount ?? 0)
        }
    }

    /// Number of composed frames currently cached (not counting frames held in memory).
    public var cachedFrameCount: Int { state.withLock { $0.entries.count } }

    private func compose(_ index: Int, in state: inout State) throws -> PixelBuffer {
        state.useCounter &+= 1
        if var hit = state.entries[index] {
            hit.lastUse = state.useCounter
            state.entries[index] = hit
            return hit.frame
        }
        guard let source else { preconditionFailure("frames in memory are always pinned") }
        // Start from the nearest kept canvas before `index` (frame 0 when there is none).
        var start = 0
        var background: PixelBuffer? = nil
        if outputSize != nil {
            if let last = state.lastCanvas, last.index < index {
                start = last.index + 1
                background = last.canvas
            }
            // Dropped while composing: a uniquely held canvas can be drawn on in place.
            state.lastCanvas = nil
        } else if let nearest = state.entries.keys.filter({ $0 < index }).max(), let entry = state.entries[nearest] {
            start = nearest + 1
            background = entry.nextBackground ?? entry.frame
        }
        var result: PixelBuffer? = nil
        for current in start...index {
            let composed = try source.composeFrame(at: current, onto: background)
            background = composed.nextBackground ?? composed.frame
            guard current == index else { continue }
            if let outputSize {
                let shown = ImageResampler.resample(composed.frame, width: outputSize.width, height: outputSize.height)
                result = shown
                state.entries[current] = Entry(frame: shown, nextBackground: nil, lastUse: state.useCounter)
                state.lastCanvas = background.map { (current, $0) }
            } else {
                result = composed.frame
                // Keep the after-disposal canvas only when disposal made it differ from the frame.
                state.entries[current] = Entry(frame: composed.frame, nextBackground: composed.nextBackground,
                                               lastUse: state.useCounter)
            }
        }
        evict(in: &state)
        return result!
    }

    private func evict(in state: inout State) {
        // Frame 0 stays (it is the poster and the start of every loop); the rest are least recently used.
        while state.entries.count > cachedFrameLimit + 1 {
            guard let victim = state.entries.filter({ $0.key != 0 }).min(by: { $0.value.lastUse < $1.value.lastUse })?.key
            else { break }
            state.entries.removeValue(forKey: victim)
        }
    }
}
