import Foundation
import Testing
import WebImage
import WebImageTestSupport

/// Damaged copies of every sample format through the wired coders: each decode either succeeds or throws
/// an `ImageError`; none may crash, hang or allocate without bound. Animated results are played through
/// every frame, since lazy frames decode only when asked for.
@Suite("Hostile input through every coder")
struct HostileInputTests {
    static let resources = PackagePaths.root.appendingPathComponent("Examples/Resources")
    static let samples = [
        "badge-alpha.png", "baseline.jpg", "progressive.jpg", "lossy.webp", "lossless.webp",
        "spinner.gif", "spinner.png", "spinner.webp",
    ]

    /// Decodes `data` with the shared coders and, if it decodes, every frame; returns whether it failed.
    static func decodeFully(_ data: Data, options: DecodeOptions) -> Bool {
        do {
            let image = try ImageCodersManager.shared.decode(data, options: options)
            for index in 0..<image.frameCount where image.isAnimated { _ = try image.frame(at: index) }
            return false
        } catch is ImageError {
            return true
        } catch {
            Issue.record("an error that is not an ImageError: \(error)")
            return true
        }
    }

    @Test(arguments: samples)
    func flippedAndCutBytesGiveTypedErrorsOrImages(sample: String) throws {
        WebImage.registerBuiltInCoders()
        let original = try Data(contentsOf: Self.resources.appendingPathComponent(sample))
        var random = SeededGenerator(seed: UInt64(original.count))
        let limits = DecodeOptions(maxPixelCount: 4_000_000)
        var failures = 0
        for round in 0..<400 {
            var bytes = [UInt8](original)
            // Corrupt a few bytes anywhere (headers included), sometimes cut the tail off as well.
            for _ in 0..<Int.random(in: 1...8, using: &random) {
                bytes[Int.random(in: 0..<bytes.count, using: &random)] = UInt8.random(in: 0...255, using: &random)
            }
            if round % 3 == 0 { bytes.removeLast(Int.random(in: 0..<bytes.count, using: &random)) }
            var options = limits
            options.allowPartialImage = round % 2 == 0
            if round % 5 == 0 { options.thumbnailPixelSize = PixelSize(32) }
            if Self.decodeFully(Data(bytes), options: options) { failures += 1 }
        }
        // Most damage is caught; none of it crashed (reaching here is the point).
        #expect(failures > 0)
    }

    @Test(arguments: samples)
    func everyPrefixOfASampleDecodesOrFailsTyped(sample: String) throws {
        WebImage.registerBuiltInCoders()
        let original = try Data(contentsOf: Self.resources.appendingPathComponent(sample))
        let step = max(1, original.count / 60)
        for length in stride(from: 0, to: original.count, by: step) {
            let cut = original.prefix(length)
            #expect(
                Self.decodeFully(cut, options: DecodeOptions()),
                "a \(length)-byte prefix of \(sample) decoded as complete")
            _ = Self.decodeFully(cut, options: DecodeOptions(allowPartialImage: true))
        }
    }
}
