import Foundation
import Testing
import WebImageCore
import WebImageJXLCoder
import WebImageTestSupport

@Suite("JPEG XL encoding")
struct JXLEncodingTests {
    static let fast = JXLCoder(effort: 3)

    @Test("lossless RGB and RGBA come back exactly", arguments: [PixelLayout.rgb8, .rgba8])
    func lossless(layout: PixelLayout) throws {
        let source = SyntheticPicture.make(width: 37, height: 23, layout: layout)
        let jxl = try Self.fast.encode(Image(pixels: source), as: .jpegXL, options: EncodeOptions(lossless: true))
        #expect(ImageFormat.detect(jxl) == .jpegXL)
        #expect(try JXLCoder().decode(jxl, options: DecodeOptions()).pixels == source)
    }

    @Test("lossy files are close, smaller at lower quality, and djxl reads them alike")
    func lossy() throws {
        let source = SyntheticPicture.make(width: 96, height: 64)
        let good = try Self.fast.encode(Image(pixels: source), as: .jpegXL, options: EncodeOptions(quality: 0.9))
        let poor = try Self.fast.encode(Image(pixels: source), as: .jpegXL, options: EncodeOptions(quality: 0.3))
        #expect(poor.count < good.count)
        let decoded = try JXLCoder().decode(good, options: DecodeOptions()).pixels
        #expect(SyntheticPicture.meanDifference(decoded, source) < 3)
        #expect(SyntheticPicture.maxDifference(decoded, try JXLTool().djxlPixels(good)) <= JXLReferenceTests.tolerance)
    }

    @Test("animations are written frame by frame with their durations; the ICC profile is kept")
    func animationAndICC() throws {
        let frames = (0..<3).map {
            ImageFrame(
                pixels: SyntheticPicture.make(width: 20, height: 12, layout: .rgba8, phase: $0 * 70),
                duration: .milliseconds(100 * ($0 + 1)))
        }
        let jxl = try Self.fast.encode(Image(frames: frames), as: .jpegXL, options: EncodeOptions(lossless: true))
        let image = try JXLCoder().decode(jxl, options: DecodeOptions())
        #expect(image.frameCount == 3)
        #expect(image.frameDurations.map { ($0 / .milliseconds(1)).rounded() } == [100, 200, 300])
        for index in 0..<3 { #expect(try image.frame(at: index).pixels == frames[index].pixels) }
    }
}

@Suite("JPEG XL hostile input")
struct JXLHostileInputTests {
    @Test("truncated files give .badImageData")
    func truncated() throws {
        let jxl = try JXLTool().cjxl(SyntheticPicture.make(width: 40, height: 40), ["-d", "1", "-e", "3"])
        for length in 0..<jxl.count {
            do {
                _ = try JXLCoder().decode(jxl.prefix(length), options: DecodeOptions())
                Issue.record("a \(length)-byte prefix of \(jxl.count) decoded")
            } catch {
                guard case .badImageData = error else { Issue.record("length \(length): \(error)"); continue }
            }
        }
    }

    @Test("corrupted bytes give a typed error or an image, never a crash")
    func corrupted() throws {
        let jxl = try JXLTool().cjxl(SyntheticPicture.make(width: 40, height: 40), ["-d", "1", "-e", "3"])
        var generator = SeededGenerator(seed: 31)
        for _ in 0..<200 {
            var bytes = [UInt8](jxl)
            for _ in 0..<3 {
                bytes[Int.random(in: 2..<bytes.count, using: &generator)] = UInt8.random(in: 0...255, using: &generator)
            }
            do { _ = try JXLCoder().decode(Data(bytes), options: DecodeOptions(maxPixelCount: 1 << 22)) } catch {
                switch error {
                case .badImageData, .imageTooLarge: continue
                default: Issue.record("\(error)")
                }
            }
        }
    }

    @Test("the header's size is checked against the pixel limit before decoding; cancellation stops it")
    func budgets() throws {
        let jxl = try JXLTool().cjxl(SyntheticPicture.make(width: 40, height: 30), ["-d", "1", "-e", "3"])
        #expect(throws: ImageError.imageTooLarge(width: 40, height: 30, limit: 1000)) {
            try JXLCoder().decode(jxl, options: DecodeOptions(maxPixelCount: 1000))
        }
        let incremental = JXLCoder().makeIncrementalDecoder(options: DecodeOptions(maxPixelCount: 1000))
        #expect(throws: ImageError.imageTooLarge(width: 40, height: 30, limit: 1000)) { try incremental.append(jxl) }
        let token = DecodeCancellation()
        token.cancel()
        #expect(throws: ImageError.cancelled) {
            try JXLCoder().decode(jxl, options: DecodeOptions(cancellation: token))
        }
    }
}
