import Foundation
import Testing
import WebImageCore
import WebImageGIFCoder

/// Damage browsers forgive, forgiven the same way (what each browser does is in ``GIFCoder``'s
/// `GIFFileIndex` and `GIFColorTable`), on files written byte by byte.
@Suite("GIF leniency")
struct GIFLeniencyTests {
    static let red: [UInt8] = [255, 0, 0], blue: [UInt8] = [0, 0, 255]
    let coder = GIFCoder()

    func rgba(_ pixels: PixelBuffer, _ x: Int, _ y: Int) -> [UInt8] {
        let o = (y * pixels.width + x) * 4
        return Array(pixels.bytes[o..<(o + 4)])
    }

    @Test func framesWithoutAnyColorTableAreDrawnInOpaqueBlack() throws {
        // Frame 0 has no colors anywhere (index 3 is its transparent one); frame 1 brings its own table.
        var fixture = GIFFixture(
            width: 3, height: 2, palette: [],
            frames: [
                .init(width: 3, height: 2, indices: [0, 1, 2, 3, 3, 7], transparentIndex: 3),
                .init(width: 1, height: 1, indices: [0], localPalette: [Self.blue]),
            ])
        fixture.globalPalette = false
        let image = try coder.decode(Data(fixture.bytes), options: DecodeOptions())
        #expect(image.frameCount == 2)
        let black: [UInt8] = [0, 0, 0, 255], clear: [UInt8] = [0, 0, 0, 0]
        let first = try image.frame(at: 0).pixels
        #expect(
            [rgba(first, 0, 0), rgba(first, 2, 0), rgba(first, 0, 1), rgba(first, 2, 1)] == [
                black, black, clear, black,
            ])
        let second = try image.frame(at: 1).pixels
        #expect(rgba(second, 0, 0) == Self.blue + [255] && rgba(second, 1, 0) == black && rgba(second, 1, 1) == clear)
    }

    @Test func aZeroScreenTakesTheFirstFramesSize() throws {
        let fixture = GIFFixture(
            width: 0, height: 0, palette: [Self.red], loopCount: nil,
            frames: [
                .init(width: 5, height: 3, indices: Array(repeating: 0, count: 15))
            ])
        let image = try coder.decode(Data(fixture.bytes), options: DecodeOptions())
        #expect(image.width == 5 && image.height == 3)
        #expect(rgba(image.pixels, 4, 2) == Self.red + [255])
    }

    @Test func aScreenSmallerThanFrameZeroGrowsToHoldItAndLaterFramesAreClipped() throws {
        // Chromium: the screen grows to frame 0's offset plus size; later frames are clipped to that.
        let fixture = GIFFixture(
            width: 2, height: 2, palette: [Self.red, Self.blue],
            frames: [
                .init(x: 1, y: 1, width: 4, height: 3, indices: Array(repeating: 0, count: 12)),
                .init(x: 3, y: 2, width: 10, height: 10, indices: Array(repeating: 1, count: 100)),
            ])
        let image = try coder.decode(Data(fixture.bytes), options: DecodeOptions())
        #expect(image.width == 5 && image.height == 4)
        let first = try image.frame(at: 0).pixels
        #expect(rgba(first, 0, 0) == [0, 0, 0, 0] && rgba(first, 4, 3) == Self.red + [255])
        let second = try image.frame(at: 1).pixels
        #expect(second.width == 5 && rgba(second, 4, 3) == Self.blue + [255] && rgba(second, 1, 1) == Self.red + [255])
    }

    @Test func anEmptyFrameShowsForItsDelayAndDrawsNothing() throws {
        let fixture = GIFFixture(
            width: 2, height: 1, palette: [Self.red, Self.blue],
            frames: [
                .init(width: 2, height: 1, indices: [0, 0]),
                .init(width: 0, height: 0, indices: [], delay: 30),
                .init(width: 1, height: 1, indices: [1]),
            ])
        let image = try coder.decode(Data(fixture.bytes), options: DecodeOptions())
        #expect(image.frameCount == 3 && image.frameDurations == [100, 300, 100].map { .milliseconds($0) })
        #expect(try image.frame(at: 1).pixels == image.frame(at: 0).pixels)
        #expect(try rgba(image.frame(at: 2).pixels, 0, 0) == Self.blue + [255])
        // An empty frame 0 leaves the screen as it is; on a 0x0 screen there is then nothing to show.
        var empty = fixture
        empty.frames.removeFirst()
        #expect(try coder.decode(Data(empty.bytes), options: DecodeOptions()).width == 2)
        empty.width = 0
        empty.height = 0
        #expect(throws: ImageError.self) { _ = try coder.decode(Data(empty.bytes), options: DecodeOptions()) }
    }

    @Test func anUnknownRecordAfterGoodFramesEndsTheFileThere() throws {
        var fixture = GIFFixture(
            width: 2, height: 1, palette: [Self.red, Self.blue],
            frames: [
                .init(width: 2, height: 1, indices: [0, 0]),
                .init(width: 2, height: 1, indices: [1, 1]),
            ])
        fixture.trailer = false
        let junk: [UInt8] = [0x00, 0x55, 0xAA, 0x2C, 0x01]
        let image = try coder.decode(Data(fixture.bytes + junk), options: DecodeOptions())
        #expect(image.frameCount == 2)
        #expect(try rgba(image.frame(at: 1).pixels, 1, 0) == Self.blue + [255])

        // Before any frame there is nothing to keep: still an error.
        fixture.frames = []
        #expect(throws: ImageError.self) { _ = try coder.decode(Data(fixture.bytes + junk), options: DecodeOptions()) }
    }
}
