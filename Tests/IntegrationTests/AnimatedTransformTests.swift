import Foundation
import Testing
import WebImage
import WebImageTestSupport
import WebImageTransformers

/// A count shared by the copies of a transformer.
private final class CallCounter: Sendable {
    /// Guards the number of calls so far.
    private let count = Locked(0)
    func increment() { count.withLock { $0 += 1 } }
    var value: Int { count.withLock { $0 } }
}

/// Counts the frames it is given and mirrors each one left-right: a real transformation whose calls a
/// test can see.
private struct CountingMirror: FrameTransformer {
    /// How many frames were transformed so far.
    let calls = CallCounter()
    var transformerKey: String { "counting-mirror" }

    func transformFrame(_ pixels: PixelBuffer) throws(ImageError) -> PixelBuffer {
        calls.increment()
        let packed = pixels.packed()
        let channels = packed.layout.bytesPerPixel
        var bytes = packed.bytes
        for y in 0..<packed.height {
            for x in 0..<packed.width {
                let from = (y * packed.width + (packed.width - 1 - x)) * channels
                let to = (y * packed.width + x) * channels
                for c in 0..<channels { bytes[to + c] = packed.bytes[from + c] }
            }
        }
        return PixelBuffer(width: packed.width, height: packed.height, layout: packed.layout, bytes: bytes)
    }
}

/// Animated images through the manager with `.transformAnimatedImage`: a real GIF and a real WebP written by
/// our encoders, read back by the file loader, transformed frame by frame only when a frame is asked for.
@Suite("Animated images transformed lazily through the manager")
struct AnimatedTransformTests {
    static let frameCount = 6
    static let loopCount = 3
    static let durations: [Duration] = [100, 200, 300, 100, 500, 250].map { .milliseconds($0) }

    /// Six 8x4 frames, each with a bright column at its own x, so mirroring and frame order are visible.
    static func frames() -> [ImageFrame] {
        (0..<frameCount).map { index in
            var bytes = [UInt8](repeating: 0, count: 8 * 4 * 4)
            for y in 0..<4 {
                let at = (y * 8 + index) * 4
                bytes[at] = 255; bytes[at + 1] = 255; bytes[at + 2] = 255; bytes[at + 3] = 255
                for x in 0..<8 where x != index { bytes[(y * 8 + x) * 4 + 3] = 255 }
            }
            return ImageFrame(
                pixels: PixelBuffer(width: 8, height: 4, layout: .rgba8, bytes: bytes),
                duration: durations[index])
        }
    }

    /// The column of frame `pixels` (row 0) that is bright.
    static func brightColumn(_ pixels: PixelBuffer) -> Int? {
        (0..<pixels.width).first { pixels.rgba(x: $0, y: 0).r > 128 }
    }

    /// A manager that reads files with the GIF and WebP coders and keeps nothing in a cache.
    static func manager() -> ImageManager {
        let coders = ImageCodersManager(coders: [GIFCoder(), WebPCoder()])
        return ImageManager(cache: ImageCachesManager(), loader: FileLoader(coders: coders), coders: coders)
    }

    @Test(arguments: [ImageFormat.gif, .webp])
    func framesAreTransformedOnlyWhenAskedAndKeepTheirTiming(_ format: ImageFormat) async throws {
        let folder = try TemporaryDirectory(prefix: "animated-transform")
        let encoded = try ImageCodersManager(coders: [GIFCoder(), WebPCoder()])
            .encode(
                Image(validatingFrames: Self.frames(), loopCount: Self.loopCount), as: format,
                options: EncodeOptions(lossless: true))
        let file = folder.file("spinner.\(format.fileExtension ?? format.identifier)")
        try encoded.write(to: file)

        let mirror = CountingMirror()
        var context = ImageContext()
        context.imageTransformer = mirror
        context.storeCacheType = .none
        let result = try await Self.manager().image(for: file, options: [.transformAnimatedImage], context: context)
        let image = result.image

        // Only the poster was transformed while loading.
        #expect(mirror.calls.value == 1)
        #expect(image.isAnimated)
        #expect(image.frameCount == Self.frameCount)
        #expect(image.loopCount == Self.loopCount)
        for (got, want) in zip(image.frameDurations, Self.durations) {
            #expect(max(got - want, want - got) < .milliseconds(11))
        }
        #expect(Self.brightColumn(image.pixels) == 7)

        // Asking for frame 4 transforms it (and no more than the frames up to it).
        let fourth = try image.frame(at: 4)
        #expect(Self.brightColumn(fourth.pixels) == 7 - 4)
        #expect(max(fourth.duration - Self.durations[4], Self.durations[4] - fourth.duration) < .milliseconds(11))
        let afterFour = mirror.calls.value
        #expect(afterFour >= 2 && afterFour <= 5)

        // Every frame, in order, mirrored.
        var columns: [Int?] = []
        try image.forEachFrame { frame throws(ImageError) in columns.append(Self.brightColumn(frame.pixels)) }
        #expect(columns == (0..<Self.frameCount).map { 7 - $0 })
    }

    @Test func processingOptionsAreAppliedLazilyToEveryFrame() async throws {
        let folder = try TemporaryDirectory(prefix: "animated-processing")
        let encoded = try GIFCoder().encode(
            Image(validatingFrames: Self.frames(), loopCount: Self.loopCount), as: .gif,
            options: EncodeOptions())
        let file = folder.file("spinner.gif")
        try encoded.write(to: file)
        // The parsed pipeline (mirror, then a 1 px black border), behind a counting first step.
        let built = try #require(
            try ProcessingOptions(parsing: "pd:1/bg:000/fl").transformer(watermarkImage: nil)
                as? ProcessingTransformer)
        let counter = CountingMirror()
        let pipeline = ProcessingTransformer(
            steps: [counter, FlipTransformer(horizontal: true, vertical: false)] + built.steps)
        var context = ImageContext()
        context.imageTransformer = pipeline
        context.storeCacheType = .none
        let result = try await Self.manager().image(for: file, options: [.transformAnimatedImage], context: context)
        let image = result.image
        #expect(counter.calls.value == 1)
        #expect(image.width == 10 && image.height == 6)
        #expect(image.frameCount == Self.frameCount && image.loopCount == Self.loopCount)
        // Mirrored twice by the counter's own mirror and the extra flip, then once by `fl`: column 7 - index,
        // moved right by the 1 px padding.
        let second = try image.frame(at: 2)
        #expect(
            Self.brightColumn(
                PixelBuffer(
                    width: 10, height: 1, layout: second.pixels.layout,
                    bytes: Array(second.pixels.bytes[second.pixels.bytesPerRow...]))) == 1 + 7 - 2)
        #expect(counter.calls.value <= 3)
        #expect(max(second.duration - Self.durations[2], Self.durations[2] - second.duration) < .milliseconds(11))
    }

    @Test func withoutTheOptionAnimationsAreLeftAlone() async throws {
        let folder = try TemporaryDirectory(prefix: "animated-untouched")
        let encoded = try GIFCoder().encode(
            Image(validatingFrames: Self.frames(), loopCount: Self.loopCount), as: .gif,
            options: EncodeOptions())
        let file = folder.file("spinner.gif")
        try encoded.write(to: file)
        let mirror = CountingMirror()
        var context = ImageContext()
        context.imageTransformer = mirror
        context.storeCacheType = .none
        let result = try await Self.manager().image(for: file, options: [], context: context)
        #expect(mirror.calls.value == 0)
        #expect(result.image.frameCount == Self.frameCount)
        #expect(Self.brightColumn(result.image.pixels) == 0)
    }
}
