import Foundation
import Testing
import WebImageAVIFCoder
import WebImageCore
import WebImageTestSupport

/// Bad input gets a typed error, never a crash; budgets refuse headers before any pixel memory.
@Suite("AVIF hostile input")
struct AVIFHostileInputTests {
    @Test("truncated files (every length up to the header, then in steps) give .badImageData")
    func truncated() throws {
        let avif = try AVIFTool().avifenc(SyntheticPicture.make(width: 32, height: 32), ["-s", "10"])
        let lengths = Array(0..<min(avif.count, 400)) + Array(stride(from: 400, to: avif.count, by: 37))
        for length in lengths {
            do {
                _ = try AVIFCoder().decode(avif.prefix(length), options: DecodeOptions())
                Issue.record("a \(length)-byte prefix of \(avif.count) decoded")
            } catch {
                guard case .badImageData = error else { Issue.record("length \(length): \(error)"); continue }
            }
        }
    }

    @Test("corrupted bytes after the header give .badImageData or an image, never a crash")
    func corrupted() throws {
        let avif = try AVIFTool().avifenc(SyntheticPicture.make(width: 32, height: 32), ["-s", "10"])
        var generator = SeededGenerator(seed: 17)
        for _ in 0..<200 {
            var bytes = [UInt8](avif)
            for _ in 0..<4 {
                bytes[Int.random(in: 12..<bytes.count, using: &generator)] = UInt8.random(
                    in: 0...255, using: &generator)
            }
            do { _ = try AVIFCoder().decode(Data(bytes), options: DecodeOptions()) } catch {
                guard case .badImageData = error else { Issue.record("\(error)"); continue }
            }
        }
    }

    @Test("an ispe of 40000x40000 is refused as too large before decoding; under the limit it still says the size")
    func hugeHeader() throws {
        let avif = try AVIFTool().avifenc(SyntheticPicture.make(width: 32, height: 32), ["-s", "10"])
        let huge = HostileFiles.withSpatialExtent(avif, width: 40_000, height: 40_000)
        #expect(
            throws: ImageError.imageTooLarge(width: 40_000, height: 40_000, limit: DecodeOptions.defaultMaxPixelCount)
        ) {
            try AVIFCoder().decode(huge, options: DecodeOptions())
        }
        #expect(throws: ImageError.imageTooLarge(width: 32, height: 32, limit: 1000)) {
            try AVIFCoder().decode(avif, options: DecodeOptions(maxPixelCount: 1000))
        }
    }

    @Test("a cancelled token or an expired time limit stops the decode with a typed error")
    func stops() throws {
        let avif = try AVIFTool().avifenc(SyntheticPicture.make(width: 32, height: 32), ["-s", "10"])
        let token = DecodeCancellation()
        token.cancel()
        #expect(throws: ImageError.cancelled) {
            try AVIFCoder().decode(avif, options: DecodeOptions(cancellation: token))
        }
        do {
            _ = try AVIFCoder().decode(avif, options: DecodeOptions(timeLimit: .zero))
            Issue.record("decoded past a zero time limit")
        } catch {
            guard case .decodeBudgetExceeded(.time, _, _) = error else { Issue.record("\(error)"); return }
        }
    }

    @Test("a damaged later frame ends the animation at the frame before it")
    func damagedLaterFrame() throws {
        // Three identical frames: frames 1 and 2 are tiny inter frames at the end of the mdat, which
        // avifenc writes last.
        let tool = try AVIFTool()
        let png = try tool.png(SyntheticPicture.make(width: 32, height: 32))
        let avif = try tool.avifenc([png, png, png], ["-s", "10", "--timescale", "10"])
        // Its OBUs are overwritten with 0xFF (the forbidden bit set) so dav1d refuses them.
        var bytes = [UInt8](avif)
        for i in (bytes.count - 60)..<bytes.count { bytes[i] = 0xFF }
        let damaged = Data(bytes)
        let image = try AVIFCoder().decode(damaged, options: DecodeOptions())
        #expect(image.frameCount == 3)  // declared
        _ = try image.frame(at: 2)
        let good = image.frameCount
        #expect(good >= 1 && good < 3)
        #expect(try image.frame(at: good - 1).pixels == (try image.frame(at: 2).pixels))
    }
}
