import Foundation
import WebImageCore

/// Hostile GIFs. Each is a valid file (every decoder reads its structure) made to cost a naive decoder
/// far more than its size suggests.
extension HostileFiles {
    /// Two colors: frames alternate between them so every frame changes the canvas.
    private static let twoColors: [[UInt8]] = [[255, 0, 0], [0, 0, 255]]

    /// `frames` frames of 1x1 pixel scattered over a logical screen of `screen`, looping forever: about
    /// 24 bytes per frame (10,000 frames on 4000x4000 is 240 KB), yet every composed frame is a full
    /// canvas (16 MP each on 4000x4000, 160 GP in all).
    public static func manyFramesGIF(frames: Int, screen: PixelSize) -> Data {
        var gif = GIFRunWriter(screen: (screen.width, screen.height), palette: twoColors)
        gif.loop(0)
        for n in 0..<frames {
            gif.frame(
                x: n * 7 % screen.width, y: n * 13 % screen.height, width: 1, height: 1,
                runs: [.init(index: UInt8(n % 2), count: 1)], delay: 2)
        }
        return gif.finish()
    }

    /// `frames` frames of `frameSize`, each one color, on a logical screen of only `screen`: the frames
    /// are clipped to the screen when composed, but each must still be decompressed in full. 200 frames
    /// of 10000x10000 on 16x16 are about 8 MB holding 20 GP of compressed pixels.
    public static func clippedHugeFramesGIF(frames: Int, frameSize: PixelSize, screen: PixelSize) -> Data {
        var gif = GIFRunWriter(screen: (screen.width, screen.height), palette: twoColors)
        gif.loop(0)
        for n in 0..<frames {
            gif.frame(
                width: frameSize.width, height: frameSize.height,
                runs: [.init(index: UInt8(n % 2), count: frameSize.width * frameSize.height)])
        }
        return gif.finish()
    }

    /// An ordinary animation within every default budget: `frames` full frames of `size`, eight
    /// horizontal bands of eight colors that move down one band per frame. Small (a few hundred bytes
    /// per frame), so converting it measures the coders' memory, not the input's.
    public static func bandedAnimationGIF(frames: Int, size: PixelSize) -> Data {
        let bands = 8
        let palette: [[UInt8]] = (0..<bands).map { band -> [UInt8] in
            let step = UInt8(band)
            return [step * 32, 255 - step * 32, step * 16]
        }
        var gif = GIFRunWriter(screen: (size.width, size.height), palette: palette)
        gif.loop(0)
        for n in 0..<frames {
            let runs = (0..<bands).map { band -> GIFRunWriter.Run in
                let top = size.height * band / bands, bottom = size.height * (band + 1) / bands
                return .init(index: UInt8((band + n) % bands), count: (bottom - top) * size.width)
            }
            gif.frame(width: size.width, height: size.height, runs: runs, delay: 4)
        }
        return gif.finish()
    }

    /// An animation of `frames` frames of `size` (one color each, alternating) whose frame `damaged`
    /// (at least 1) has broken compressed data in an intact block structure: browsers show the frames
    /// before it.
    public static func damagedFrameGIF(frames: Int, size: PixelSize, damaged: Int) -> Data {
        var gif = GIFRunWriter(screen: (size.width, size.height), palette: twoColors)
        gif.loop(0)
        for n in 0..<frames {
            if n == damaged {
                gif.damagedFrame(width: size.width, height: size.height)
            } else {
                gif.frame(
                    width: size.width, height: size.height,
                    runs: [.init(index: UInt8(n % 2), count: size.width * size.height)])
            }
        }
        return gif.finish()
    }
}
