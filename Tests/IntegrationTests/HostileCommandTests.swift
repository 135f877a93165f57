import Foundation
import Testing
import WebImage
import WebImageTestSupport

/// The hostile classes through `webimage fetch`, as a user meets them: one file never takes down the
/// batch, each failure is one line naming its file, and the rest is still processed.
@Suite("webimage fetch on hostile files", .serialized)
struct HostileCommandTests {
    func environment(_ cache: TemporaryDirectory) -> [String: String] { ["XDG_CACHE_HOME": cache.url.path] }

    @Test func aDamagedAnimationKeepsItsGoodFramesAndAnOverBudgetFileFailsAloneInTheBatch() throws {
        let input = try TemporaryDirectory(prefix: "hostile-in")
        let output = try TemporaryDirectory(prefix: "hostile-out")
        let cache = try TemporaryDirectory(prefix: "hostile-cache")
        let damaged = try input.write(
            HostileFiles.damagedFrameGIF(frames: 5, size: PixelSize(40), damaged: 2),
            to: "damaged.gif")
        let overBudget = try input.write(
            HostileFiles.clippedHugeFramesGIF(
                frames: 200, frameSize: PixelSize(10_000),
                screen: PixelSize(16)), to: "clipped.gif")
        let scans = try input.write(
            HostileFiles.manyScansProgressiveJPEG(scans: 2_000, size: PixelSize(2000)),
            to: "scans.jpg")
        let good = try input.write(HostileFiles.bandedAnimationGIF(frames: 3, size: PixelSize(30)), to: "good.gif")
        let run = try BuiltExecutable.run(
            "webimage",
            [
                "fetch", damaged.path, overBudget.path, scans.path, good.path,
                "--format", "png", "--output", output.url.path, "--no-cache",
            ],
            environment: environment(cache))
        #expect(run.status != 0, "a failed file makes the batch exit non-zero")
        let errorLines = run.stderr.split(separator: "\n")
        #expect(errorLines.count == 2, "\(run.stderr)")
        #expect(errorLines.contains { $0.contains("clipped.gif") && $0.contains("total pixels") }, "\(run.stderr)")
        #expect(errorLines.contains { $0.contains("scans.jpg") && $0.contains("budget") }, "\(run.stderr)")
        let written = try FileManager.default.contentsOfDirectory(atPath: output.url.path).sorted()
        #expect(written == ["damaged.png", "good.png"])
        // The table shows the frames the damaged animation really has.
        let damagedRow = try #require(run.stdout.split(separator: "\n").first { $0.contains("damaged.gif") })
        #expect(damagedRow.split(separator: " ").contains("2"), "\(damagedRow)")

        // The damaged animation was written with the two frames before its broken one.
        let coders = ImageCodersManager(coders: [PNGCoder(), APNGCoder()])
        let reread = try coders.decode(
            Data(contentsOf: output.url.appendingPathComponent("damaged.png")),
            options: DecodeOptions())
        #expect(reread.frameCount == 2)
        #expect(
            try coders.decode(
                Data(contentsOf: output.url.appendingPathComponent("good.png")),
                options: DecodeOptions()
            ).frameCount == 3)
    }

    @Test func hostileAnimationsAreRefusedFastInEveryMode() throws {
        let input = try TemporaryDirectory(prefix: "hostile-modes")
        let cache = try TemporaryDirectory(prefix: "hostile-modes-cache")
        let files = [
            try input.write(HostileFiles.manyFramesGIF(frames: 10_000, screen: PixelSize(4000)), to: "frames.gif"),
            try input.write(
                HostileFiles.manyFramesAnimatedWebP(frames: 10_000, canvas: PixelSize(1000)), to: "frames.webp"),
            try input.write(HostileFiles.manyHuffmanGroupsLosslessWebP(), to: "groups.webp"),
        ]
        for file in files {
            for mode in [["--format", "png"], ["--thumbnail", "64", "--format", "gif"]] {
                let output = try TemporaryDirectory(prefix: "hostile-modes-out")
                let run = try BuiltExecutable.run(
                    "webimage",
                    [
                        "fetch", file.path, "--output", output.url.path,
                        "--no-cache",
                    ] + mode, environment: environment(cache))
                #expect(run.status != 0, "\(file.lastPathComponent) \(mode)")
                #expect(run.stderr.contains("budget"), "\(file.lastPathComponent) \(mode): \(run.stderr)")
                #expect(try FileManager.default.contentsOfDirectory(atPath: output.url.path).isEmpty)
            }
        }
    }

    @Test func aRelativePathNamesALocalFile() throws {
        let folder = try TemporaryDirectory(prefix: "relative")
        let cache = try TemporaryDirectory(prefix: "relative-cache")
        _ = try folder.write(HostileFiles.bandedAnimationGIF(frames: 2, size: PixelSize(8)), to: "banded.gif")
        try FileManager.default.createDirectory(
            at: folder.url.appendingPathComponent("photos"),
            withIntermediateDirectories: true)
        _ = try folder.write(HostileFiles.bandedAnimationGIF(frames: 3, size: PixelSize(8)), to: "photos/b.gif")
        let run = try BuiltExecutable.run(
            "webimage", ["fetch", "banded.gif", "photos/b.gif", "--no-cache"],
            environment: environment(cache), in: folder.url)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.contains("banded.gif") && run.stdout.contains("b.gif"))
        // A relative name with no file behind it is still an invalid URL.
        let missing = try BuiltExecutable.run(
            "webimage", ["fetch", "nothing-here.gif"],
            environment: environment(cache), in: folder.url)
        #expect(missing.status != 0 && missing.stderr.contains("invalid URL"), "\(missing.stderr)")
    }
}
