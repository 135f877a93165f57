import Foundation
import Testing
import WebImage
import WebImageTestSupport
import WebImageTransformers

/// `webimage fetch --process`: the processing-option text applied by the command, end to end.
@Suite("webimage fetch --process", .serialized)
struct ProcessCommandTests {
    func environment(_ cache: TemporaryDirectory) -> [String: String] { ["XDG_CACHE_HOME": cache.url.path] }

    /// A 64x32 opaque PNG with a gradient, written to `folder`.
    static func writePhoto(in folder: TemporaryDirectory) throws -> URL {
        var bytes: [UInt8] = []
        for y in 0..<32 { for x in 0..<64 { bytes += [UInt8(x * 4), UInt8(y * 8), 128] } }
        let image = Image(pixels: PixelBuffer(width: 64, height: 32, layout: .rgb8, bytes: bytes))
        let file = folder.file("photo.png")
        try PNGCoder().encode(image, as: .png, options: EncodeOptions()).write(to: file)
        return file
    }

    @Test func processResizesPadsAndWritesTheFormatItNames() throws {
        let input = try TemporaryDirectory(prefix: "process-in")
        let out = try TemporaryDirectory(prefix: "process-out")
        let cache = try TemporaryDirectory(prefix: "process-cache")
        let photo = try Self.writePhoto(in: input)
        let run = try BuiltExecutable.run(
            "webimage",
            [
                "fetch", photo.path, "--process", "pd:2/rs:fit:16:16/sh:0.5/f:webp/q:90",
                "--output", out.url.path,
            ], environment: environment(cache))
        #expect(run.status == 0, "\(run.stderr)")
        let written = try FileManager.default.contentsOfDirectory(atPath: out.url.path)
        #expect(written == ["photo.webp"])
        let data = try Data(contentsOf: out.file("photo.webp"))
        #expect(ImageFormat.detect(data) == .webp)
        let image = try WebPCoder().decode(data, options: DecodeOptions())
        // Fit 64x32 into 16x16 gives 16x8; the padding comes after the resize: 20x12.
        #expect(image.width == 20 && image.height == 12)
    }

    @Test func processKeepsAnAnimationAndItsFrames() throws {
        let out = try TemporaryDirectory(prefix: "process-anim-out")
        let cache = try TemporaryDirectory(prefix: "process-anim-cache")
        let spinner = PackagePaths.root.appendingPathComponent("Examples/Resources/spinner.gif")
        let original = try GIFCoder().decode(Data(contentsOf: spinner), options: DecodeOptions())
        let run = try BuiltExecutable.run(
            "webimage",
            [
                "fetch", spinner.path, "--process", "fl/rs:force:10:12",
                "--output", out.url.path,
            ], environment: environment(cache))
        #expect(run.status == 0, "\(run.stderr)")
        let image = try GIFCoder().decode(Data(contentsOf: out.file("spinner.gif")), options: DecodeOptions())
        #expect(image.width == 10 && image.height == 12)
        #expect(image.frameCount == original.frameCount && image.frameCount > 1)
        #expect(image.loopCount == original.loopCount)
        #expect(image.frameDurations == original.frameDurations)
    }

    @Test func badOptionsFailWithOneLineNamingTheOption() throws {
        let input = try TemporaryDirectory(prefix: "process-bad-in")
        let cache = try TemporaryDirectory(prefix: "process-bad-cache")
        let photo = try Self.writePhoto(in: input)
        for (text, option) in [("rs:squash:10:10", "rs"), ("blur:-2", "blur"), ("zoom:0", "zoom"), ("wm:0.5", "wm")] {
            let run = try BuiltExecutable.run(
                "webimage", ["fetch", photo.path, "--process", text],
                environment: environment(cache))
            #expect(run.status != 0, "\(text)")
            #expect(run.stderr.contains("invalid \(option):"), "\(text): \(run.stderr)")
            #expect(run.stderr.split(separator: "\n").count == 1, "\(text): \(run.stderr)")
        }
    }

    @Test func aWatermarkFileIsDrawnWhereTheOptionSays() throws {
        let input = try TemporaryDirectory(prefix: "process-wm-in")
        let out = try TemporaryDirectory(prefix: "process-wm-out")
        let cache = try TemporaryDirectory(prefix: "process-wm-cache")
        let photo = try Self.writePhoto(in: input)
        let mark = Image(
            pixels: PixelBuffer(width: 4, height: 4, layout: .rgb8, bytes: [UInt8](repeating: 255, count: 48)))
        let markFile = input.file("mark.png")
        try PNGCoder().encode(mark, as: .png, options: EncodeOptions()).write(to: markFile)
        let run = try BuiltExecutable.run(
            "webimage",
            [
                "fetch", photo.path, "--process", "wm:1:nowe:2:3/f:png",
                "--watermark", markFile.path, "--output", out.url.path,
            ],
            environment: environment(cache))
        #expect(run.status == 0, "\(run.stderr)")
        let image = try PNGCoder().decode(Data(contentsOf: out.file("photo.png")), options: DecodeOptions())
        #expect(image.width == 64 && image.height == 32)
        for (x, y) in [(2, 3), (5, 6)] {
            let pixel = image.pixels.rgba(x: x, y: y)
            #expect(pixel.r == 255 && pixel.g == 255 && pixel.b == 255, "(\(x), \(y))")
        }
        #expect(image.pixels.rgba(x: 1, y: 3).g == 24)  // untouched: row 3 of the gradient
    }
}
