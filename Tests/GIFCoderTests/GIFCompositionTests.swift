import Foundation
import Testing
import WebImageCore
import WebImageGIFCoder

/// Frames smaller than and outside the canvas, every disposal method and interlacing, on files
/// written byte by byte (``GIFFixture``), with the canvases a browser shows.
@Suite("GIF composition")
struct GIFCompositionTests {
    static let red: [UInt8] = [255, 0, 0], green: [UInt8] = [0, 255, 0], blue: [UInt8] = [0, 0, 255]
    let coder = GIFCoder()

    /// 4x4 red; a blue 2x2 at (1,1) disposed to "previous"; a green 2x2 at (3,3), clipped to one
    /// pixel, disposed to "background"; a blue pixel at (0,0).
    static let disposals = GIFFixture(
        width: 4, height: 4, palette: [red, green, blue],
        frames: [
            .init(width: 4, height: 4, indices: Array(repeating: 0, count: 16), disposal: 1),
            .init(x: 1, y: 1, width: 2, height: 2, indices: [2, 2, 2, 2], disposal: 3),
            .init(x: 3, y: 3, width: 2, height: 2, indices: [1, 1, 1, 1], disposal: 2),
            .init(width: 1, height: 1, indices: [2]),
        ])

    func pixels(_ image: Image, _ index: Int) throws -> [[UInt8]] {
        let frame = try image.frame(at: index).pixels
        return (0..<16).map { Array(frame.bytes[($0 * 4)..<($0 * 4 + 4)]) }
    }

    @Test func disposalNoneKeepsPreviousRestoresAndBackgroundClearsToTransparent() throws {
        let image = try coder.decode(Data(Self.disposals.bytes), options: DecodeOptions())
        let r = Self.red + [255], b = Self.blue + [255], g = Self.green + [255], clear: [UInt8] = [0, 0, 0, 0]
        #expect(try pixels(image, 0) == Array(repeating: r, count: 16))
        #expect(try pixels(image, 1) == (0..<16).map { [5, 6, 9, 10].contains($0) ? b : r })
        // Frame 1 was disposed to "previous": frame 2 is drawn on the all-red canvas, clipped to (3,3).
        #expect(try pixels(image, 2) == (0..<16).map { $0 == 15 ? g : r })
        // Frame 2 was disposed to "background": its visible pixel became transparent.
        #expect(try pixels(image, 3) == (0..<16).map { $0 == 0 ? b : $0 == 15 ? clear : r })
    }

    @Test func transparentIndexShowsTheCanvasAndLocalPalettesOverrideTheGlobalOne() throws {
        let fixture = GIFFixture(
            width: 2, height: 1, palette: [Self.red],
            frames: [
                .init(width: 2, height: 1, indices: [0, 0]),
                .init(width: 2, height: 1, indices: [0, 1], transparentIndex: 1, localPalette: [Self.blue]),
            ])
        let image = try coder.decode(Data(fixture.bytes), options: DecodeOptions())
        #expect(Array(try image.frame(at: 1).pixels.bytes) == Self.blue + [255] + Self.red + [255])
    }

    @Test func interlacedFramesDecodeLikeProgressiveOnes() throws {
        let indices = (0..<(7 * 11)).map { UInt8($0 % 3) }
        for height in [1, 2, 3, 5, 11] {
            var plain = GIFFixture(
                width: 7, height: height, palette: [Self.red, Self.green, Self.blue], loopCount: nil,
                frames: [.init(width: 7, height: height, indices: Array(indices.prefix(7 * height)))])
            let expected = try coder.decode(Data(plain.bytes), options: DecodeOptions()).pixels
            plain.frames[0].interlaced = true
            #expect(
                try coder.decode(Data(plain.bytes), options: DecodeOptions()).pixels == expected, "height \(height)")
        }
    }

    @Test func framesCanBeReadInAnyOrder() throws {
        // Twelve frames cycling through the disposal methods, at offsets that move and clip.
        let frames = (0..<12).map { n in
            GIFFixture.Frame(
                x: n % 5, y: n % 3, width: 3, height: 3, indices: (0..<9).map { UInt8(($0 + n) % 4) },
                disposal: n % 4, transparentIndex: n % 2 == 0 ? 3 : nil)
        }
        let data = Data(
            GIFFixture(
                width: 6, height: 4, palette: [Self.red, Self.green, Self.blue, [9, 9, 9]],
                frames: frames
            ).bytes)
        let sequential = try coder.decode(data, options: DecodeOptions())
        let expected = try (0..<12).map { try sequential.frame(at: $0).pixels }
        let shuffled = try coder.decode(data, options: DecodeOptions())
        for index in (0..<12).shuffled() + (0..<12).shuffled() {
            #expect(try shuffled.frame(at: index).pixels == expected[index], "frame \(index)")
        }
        let preloaded = try coder.decode(data, options: DecodeOptions(preloadAllFrames: true))
        #expect(try (0..<12).map { try preloaded.frame(at: $0).pixels } == expected)
    }
}
