import Foundation
import Testing
import WebImageCore
import WebImageHEIFCoder
import WebImageTestSupport

@Suite("HEIF hostile input")
struct HEIFHostileInputTests {
    @Test("truncated files give .badImageData")
    func truncated() throws {
        let heic = try HEIFTool().heifEnc(SyntheticPicture.make(width: 32, height: 32), ["-q", "50"])
        let lengths = Array(0..<min(heic.count, 300)) + Array(stride(from: 300, to: heic.count, by: 29))
        for length in lengths {
            do {
                _ = try HEIFCoder().decode(heic.prefix(length), options: DecodeOptions())
                Issue.record("a \(length)-byte prefix of \(heic.count) decoded")
            } catch {
                guard case .badImageData = error else { Issue.record("length \(length): \(error)"); continue }
            }
        }
    }

    @Test("corrupted bytes give .badImageData or an image, never a crash")
    func corrupted() throws {
        let heic = try HEIFTool().heifEnc(SyntheticPicture.make(width: 32, height: 32), ["-q", "50"])
        var generator = SeededGenerator(seed: 23)
        for _ in 0..<200 {
            var bytes = [UInt8](heic)
            for _ in 0..<4 {
                bytes[Int.random(in: 12..<bytes.count, using: &generator)] = UInt8.random(
                    in: 0...255, using: &generator)
            }
            do { _ = try HEIFCoder().decode(Data(bytes), options: DecodeOptions()) } catch {
                // A damaged ispe may also read as a size over the limit.
                switch error {
                case .badImageData, .imageTooLarge: continue
                default: Issue.record("\(error)")
                }
            }
        }
    }

    @Test("an over-limit ispe is refused as too large before decoding")
    func hugeHeader() throws {
        let heic = try HEIFTool().heifEnc(SyntheticPicture.make(width: 64, height: 48), ["-q", "50"])
        #expect(
            throws: ImageError.imageTooLarge(width: 20_000, height: 20_000, limit: DecodeOptions.defaultMaxPixelCount)
        ) {
            try HEIFCoder().decode(
                HostileFiles.withSpatialExtent(heic, width: 20_000, height: 20_000), options: DecodeOptions())
        }
        #expect(
            throws: ImageError.imageTooLarge(width: 40_000, height: 40_000, limit: DecodeOptions.defaultMaxPixelCount)
        ) {
            try HEIFCoder().decode(
                HostileFiles.withSpatialExtent(heic, width: 40_000, height: 40_000), options: DecodeOptions())
        }
        #expect(throws: ImageError.imageTooLarge(width: 64, height: 48, limit: 1000)) {
            try HEIFCoder().decode(heic, options: DecodeOptions(maxPixelCount: 1000))
        }
    }

    @Test("a cancelled token stops the decode with .cancelled")
    func cancelled() throws {
        let heic = try HEIFTool().heifEnc(SyntheticPicture.make(width: 32, height: 32), ["-q", "50"])
        let token = DecodeCancellation()
        token.cancel()
        #expect(throws: ImageError.cancelled) {
            try HEIFCoder().decode(heic, options: DecodeOptions(cancellation: token))
        }
    }
}
