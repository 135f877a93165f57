import Foundation
import Synchronization

/// The frames of an animated ``Image``: decoded lazily through an ``AnimatedFrameSource`` and kept in a
/// small bounded cache, or held in memory when they were given or preloaded.
///
/// Asking for frame `n` composes forward from the nearest kept frame before `n` (frame 0 only when
/// nothing earlier is kept), so playing an animation composes each frame once. A downsampled animation
/// (a thumbnail) keeps small frames and a single full-size canvas, the one the next frame is drawn on.
///
/// **Damaged frames.** A frame after the first that fails to decode (`.badImageData`) ends the animation
/// where it is, as Chromium does: the frames before it keep playing, ``frameCount`` and ``durations``
/// shrink to them, and asking for the damaged frame or a later one returns the last good frame. A
/// preloaded (eager) decode keeps the same frames, and ``forEachFrame(_:)``, which encoders use, stops at
/// the same place, so the lazy and the eager paths agree. A damaged frame 0 fails the decode. Budget,
/// time and cancellation errors are not damage: they are thrown to the caller.
public final class AnimatedFrames: Sendable {
    /// Number of composed frames kept by default besides the poster; each costs about two canvases.
    public static let defaultCachedFrameLimit = 2

    /// Number of frames: as declared by the file, or fewer once a damaged frame was found.
    public var frameCount: Int { state.withLock { $0.damagedFrame } ?? declaredFrameCount }
    /// Times the animation plays; 0 means forever.
    public let loopCount: Int
    /// How long each of the ``frameCount`` frames shows.
    public var durations: [Duration] { Array(declaredDurations.prefix(frameCount)) }
    /// Number of frames the file declares.
    public let declaredFrameCount: Int
    private let declaredDurations: [Duration]

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
        /// The first frame found damaged, which ends the animation; nil while none is known.
        var damagedFrame: Int?
    }

    /// Guards the frame cache and serializes calls into `source`, which therefore never runs concurrently.
    private let state: Locked<State>

    /// Longest one ``frame(at:)`` or ``preloadAllFrames()`` call may spend composing frames (it may
    /// compose several, forward from the nearest kept one); nil for no limit. The source's own checks
    /// bound each frame; this bounds the call.
    private let timeLimit: Duration?

    /// Frames composed lazily by `source`; with `outputSize`, each frame is downsampled to that size
    /// (thumbnails of animations). Keeps at most `cachedFrameLimit` frames besides frame 0. Each call that
    /// composes frames stops with `.decodeBudgetExceeded(.time, ...)` past `timeLimit`, and with
    /// `.cancelled` inside a cancelled `Task`.
    public init(
        source: any AnimatedFrameSource, outputSize: (width: Int, height: Int)? = nil,
        cachedFrameLimit: Int = AnimatedFrames.defaultCachedFrameLimit, timeLimit: Duration? = nil
    ) {
        self.source = source
        self.timeLimit = timeLimit
        // A source reporting a negative count (a custom source's bug) has no frames rather than trapping.
        let frameCount = max(0, source.frameCount)
        self.declaredFrameCount = frameCount
        self.loopCount = source.loopCount
        self.declaredDurations = (0..<frameCount).map { source.duration(at: $0) }
        self.outputSize = outputSize
        self.cachedFrameLimit = max(1, cachedFrameLimit)
        self.state = Locked(State())
    }

    /// Frames already in memory.
    public init(frames: [ImageFrame], loopCount: Int) {
        self.source = nil
        self.timeLimit = nil
        self.declaredFrameCount = frames.count
        self.loopCount = loopCount
        self.declaredDurations = frames.map(\.duration)
        self.outputSize = nil
        self.cachedFrameLimit = frames.count
        self.state = Locked(State(pinned: frames.map(\.pixels)))
    }

    /// Frame `index` (below ``declaredFrameCount``), composed now if it is not cached; the last good frame
    /// when `index` is at or after a damaged frame. An index outside `0..<declaredFrameCount` throws
    /// ``ImageError/invalidParameter(name:reason:)``.
    public func frame(at index: Int) throws -> ImageFrame {
        guard index >= 0 && index < declaredFrameCount else {
            throw ImageError.invalidParameter(
                name: "index", reason: "frame \(index) is outside 0..<\(declaredFrameCount)")
        }
        let (pixels, shown) = try state.withLock { state -> (PixelBuffer, Int) in
            if let pinned = state.pinned {
                let shown = min(index, pinned.count - 1)
                return (pinned[shown], shown)
            }
            return try composeGood(index, in: &state, watch: DecodeWatch(limit: timeLimit, cancellation: nil))
        }
        return ImageFrame(pixels: pixels, duration: declaredDurations[shown])
    }

    /// Calls `body` with each frame in order, composing one at a time, so a streaming encoder holds only
    /// the frame it writes and the canvas under it. Stops at a damaged frame, exactly where a preloaded
    /// decode stops.
    /// Errors are ``ImageError``s as they were thrown; anything else a source throws becomes `.badImageData`.
    public func forEachFrame(_ body: (ImageFrame) throws(ImageError) -> Void) throws(ImageError) {
        var index = 0
        while index < frameCount {
            let frame: ImageFrame
            do {
                frame = try self.frame(at: index)
            } catch let error as ImageError {
                throw error
            } catch {
                throw .badImageData(reason: "\(error)")
            }
            // The frame may have just been found damaged: then `frame` repeats the last good one.
            guard index < frameCount else { break }
            try body(frame)
            index += 1
        }
    }

    /// Decodes every frame now and keeps them all (SDWebImage's `preloadAllFrames`); stops at a damaged
    /// frame, keeping the frames before it.
    public func preloadAllFrames() throws {
        try state.withLock { state in
            guard state.pinned == nil else { return }
            var all: [PixelBuffer] = []
            all.reserveCapacity(declaredFrameCount)
            let watch = DecodeWatch(limit: timeLimit, cancellation: nil)
            for index in 0..<declaredFrameCount {
                let (pixels, shown) = try composeGood(index, in: &state, watch: watch)
                guard shown == index else { break }
                all.append(pixels)
            }
            state.pinned = all
            state.entries.removeAll()
            state.lastCanvas = nil
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

    /// Frame `index`, or the last good frame when `index` is at or after a damaged frame; returns the
    /// pixels and the index of the frame they show.
    private func composeGood(_ index: Int, in state: inout State, watch: DecodeWatch) throws -> (PixelBuffer, Int) {
        if let damaged = state.damagedFrame, index >= damaged {
            return (try compose(damaged - 1, in: &state, watch: watch), damaged - 1)
        }
        do {
            return (try compose(index, in: &state, watch: watch), index)
        } catch let error as DamagedFrame {
            state.damagedFrame = min(state.damagedFrame ?? error.index, error.index)
            // Drop what was kept at or after the damage; the canvas left there is unusable.
            state.entries = state.entries.filter { $0.key < error.index }
            if let last = state.lastCanvas, last.index >= error.index { state.lastCanvas = nil }
            let good = error.index - 1
            return (try compose(good, in: &state, watch: watch), good)
        }
    }

    /// Thrown inside ``compose(_:in:)`` when frame `index` (never 0) is damaged.
    private struct DamagedFrame: Error {
        let index: Int
    }

    private func compose(_ index: Int, in state: inout State, watch: DecodeWatch) throws -> PixelBuffer {
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
            try watch.check()
            let composed: ComposedFrame
            do {
                composed = try source.composeFrame(at: current, onto: background)
            } catch ImageError.badImageData where current > 0 {
                throw DamagedFrame(index: current)
            }
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
                state.entries[current] = Entry(
                    frame: composed.frame, nextBackground: composed.nextBackground,
                    lastUse: state.useCounter)
            }
        }
        evict(in: &state)
        return result!
    }

    private func evict(in state: inout State) {
        // Frame 0 stays (it is the poster and the start of every loop); the rest are least recently used.
        while state.entries.count > cachedFrameLimit + 1 {
            guard
                let victim = state.entries.filter({ $0.key != 0 }).min(by: { $0.value.lastUse < $1.value.lastUse })?.key
            else { break }
            state.entries.removeValue(forKey: victim)
        }
    }
}
