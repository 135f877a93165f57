import Foundation
import WebImageCore

/// A photo-like RGB picture of any size: smooth gradients, hard edges and fine texture, made
/// deterministically so that every run and every peer blurs the same bytes.
enum BenchPhoto {
    /// Size of the checker squares that give the picture hard edges.
    static let checker = 96

    static func make(width: Int, height: Int) -> PixelBuffer {
        var bytes = [UInt8](repeating: 0, count: width * height * 3)
        for y in 0..<height {
            for x in 0..<width {
                var h = UInt32(truncatingIfNeeded: x &* 374_761_393 &+ y &* 668_265_263)
                h = (h ^ (h >> 13)) &* 1_274_126_177
                let noise = Int(h >> 26) - 32
                let edge = (x / checker + y / checker) % 2 == 0 ? 60 : -60
                let o = (y * width + x) * 3
                bytes[o] = clamp(x * 255 / width + noise)
                bytes[o + 1] = clamp(y * 255 / height + edge + noise / 2)
                bytes[o + 2] = clamp(128 + edge - noise)
            }
        }
        return PixelBuffer(width: width, height: height, layout: .rgb8, bytes: bytes)
    }

    private static func clamp(_ value: Int) -> UInt8 { UInt8(min(255, max(0, value))) }
}
