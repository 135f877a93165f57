import Foundation
import Testing
import WebImageCore
import WebImagePNGCoder
import WebImageTestSupport

/// Blend and dispose operations on hand-built files whose every pixel is known.
@Suite("APNG composition")
struct APNGCompositionTests {
    typealias Frame = APNGFixture.Frame
    static let red: [UInt8] = [255, 0, 0, 255]
    static let green: [UInt8] = [0, 255, 0, 255]
    static let clear: [UInt8] = [0, 0, 0, 0]

    func frames(_ fixture: APNGFixture) throws -> [PixelBuffer] {
        let image = try APNGCoder().decode(try fixture.data(), options: DecodeOptions())
        return try (0..<image.frameCount).map { try image.frame(at: $0).pixels }
    }

    func pixel(_ buffer: PixelBuffer, _ x: Int, _ y: Int) -> [UInt8] {
        let p = buffer.rgba(x: x, y: y)
        return [p.r, p.g, p.b, p.a]
    }

    @Test func blendOverCompositesStraightAlphaAndSourceReplaces() throws {
        let half: [UInt8] = [0, 0, 255, 128]
        let result = try frames(
            APNGFixture(
                width: 2, height: 2,
                frames: [
                    Frame(pixels: APNGFixture.solid(2, 2, Self.red)),
                    Frame(pixels: APNGFixture.solid(1, 1, half), x: 1, y: 1, blend: 1),
                    Frame(pixels: APNGFixture.solid(1, 1, half), x: 0, y: 1, blend: 0),
                    Frame(pixels: APNGFixture.solid(1, 1, [0, 255, 0, 64]), x: 0, y: 1, blend: 1),
                ]))
        // Over opaque red: alpha stays 255, color = 128/255 of blue + 127/255 of red.
        #expect(pixel(result[1], 1, 1) == [127, 0, 128, 255])
        #expect(pixel(result[1], 0, 0) == Self.red)
        // Source: the half-transparent pixel replaces red, alpha included.
        #expect(pixel(result[2], 0, 1) == half)
        #expect(pixel(result[2], 1, 1) == [127, 0, 128, 255])
        // Over a half-transparent pixel: a = 64 + 128 * 191 / 255 ≈ 160, colors weighted by their shares.
        #expect(pixel(result[3], 0, 1) == [0, 102, 153, 160])
    }

    @Test func disposeBackgroundClearsTheFrameRectangle() throws {
        let result = try frames(
            APNGFixture(
                width: 3, height: 1,
                frames: [
                    Frame(pixels: APNGFixture.solid(3, 1, Self.red), dispose: 0),
                    Frame(pixels: APNGFixture.solid(2, 1, Self.green), x: 1, y: 0, dispose: 1),
                    Frame(pixels: APNGFixture.solid(1, 1, [0, 0, 255, 255]), x: 0, y: 0, dispose: 0, blend: 1),
                ]))
        #expect((0..<3).map { pixel(result[1], $0, 0) } == [Self.red, Self.green, Self.green])
        #expect((0..<3).map { pixel(result[2], $0, 0) } == [[0, 0, 255, 255], Self.clear, Self.clear])
    }

    @Test func disposePreviousRestoresTheCanvasBeforeTheFrame() throws {
        let result = try frames(
            APNGFixture(
                width: 3, height: 1,
                frames: [
                    Frame(pixels: APNGFixture.solid(3, 1, Self.red), dispose: 0),
                    Frame(pixels: APNGFixture.solid(1, 1, Self.green), x: 1, y: 0, dispose: 2),
                    Frame(pixels: APNGFixture.solid(1, 1, Self.green), x: 2, y: 0, dispose: 2),
                    Frame(pixels: APNGFixture.solid(1, 1, [0, 0, 255, 255]), x: 0, y: 0),
                ]))
        #expect((0..<3).map { pixel(result[1], $0, 0) } == [Self.red, Self.green, Self.red])
        #expect((0..<3).map { pixel(result[2], $0, 0) } == [Self.red, Self.red, Self.green])
        #expect((0..<3).map { pixel(result[3], $0, 0) } == [[0, 0, 255, 255], Self.red, Self.red])
    }

    @Test func disposePreviousOnTheFirstFrameActsAsBackground() throws {
        let result = try frames(
            APNGFixture(
                width: 2, height: 1,
                frames: [
                    Frame(pixels: APNGFixture.solid(2, 1, Self.red), dispose: 2),
                    Frame(pixels: APNGFixture.solid(1, 1, Self.green), x: 1, y: 0, blend: 1),
                ]))
        #expect(pixel(result[0], 0, 0) == Self.red)
        #expect([pixel(result[1], 0, 0), pixel(result[1], 1, 0)] == [Self.clear, Self.green])
    }

    @Test func aDefaultImageOutsideTheAnimationIsSkipped() throws {
        let fixture = APNGFixture(
            width: 2, height: 1, plays: 5,
            frames: [
                Frame(pixels: APNGFixture.solid(2, 1, Self.red)),
                Frame(pixels: APNGFixture.solid(2, 1, Self.green)),
            ], hiddenDefaultImage: APNGFixture.solid(2, 1, [255, 255, 255, 255]))
        let data = try fixture.data()
        let image = try APNGCoder().decode(data, options: DecodeOptions())
        #expect(image.frameCount == 2 && image.loopCount == 5)
        #expect(pixel(try image.frame(at: 0).pixels, 0, 0) == Self.red)
        #expect(pixel(try image.frame(at: 1).pixels, 1, 0) == Self.green)
        // Still-only decoders show the default image.
        #expect(try PNGCoder().decode(data, options: DecodeOptions()).pixels.rgba(x: 0, y: 0).g == 255)
    }
}
