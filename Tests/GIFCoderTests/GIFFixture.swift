/// GIF files written byte by byte, for tests that need what our encoder never writes: frames smaller
/// than or outside the canvas, every disposal method, interlacing, local palettes, broken data.
///
/// Pixels are stored with "uncompressed" LZW: 9-bit codes that are all literal palette indices, with a
/// clear code often enough that the code width never grows. Every decoder reads it.
struct GIFFixture {
    struct Frame {
        var x = 0, y = 0, width: Int, height: Int
        /// One palette index per pixel, rows top to bottom.
        var indices: [UInt8]
        var disposal = 0
        var transparentIndex: Int? = nil
        /// Delay in centiseconds.
        var delay = 10
        var localPalette: [[UInt8]]? = nil
        var interlaced = false
    }

    var width: Int
    var height: Int
    /// RGB colors; padded to 256 entries in the file.
    var palette: [[UInt8]]
    var loopCount: Int? = 0
    var frames: [Frame]
    var trailer = true
    /// Write `palette` as the global color table; false writes none (frames without a local one then
    /// have no colors at all).
    var globalPalette = true

    /// Literal codes allowed between clear codes: after 255 codes a 9-bit decoder widens to 10 bits.
    private static let codesPerClear = 254

    var bytes: [UInt8] {
        var out = Array("GIF89a".utf8) + le(width) + le(height)
        out += globalPalette ? [0xF7, 0, 0] + Self.table(palette) : [0, 0, 0]
        if let loopCount {
            out += [0x21, 0xFF, 11] + Array("NETSCAPE2.0".utf8) + [3, 1] + le(loopCount) + [0]
        }
        for frame in frames {
            let transparent = frame.transparentIndex ?? 0
            let packed = UInt8(frame.disposal << 2 | (frame.transparentIndex == nil ? 0 : 1))
            out += [0x21, 0xF9, 4, packed] + le(frame.delay) + [UInt8(transparent), 0]
            let flags = (frame.localPalette == nil ? 0 : 0x87) | (frame.interlaced ? 0x40 : 0)
            out += [0x2C] + le(frame.x) + le(frame.y) + le(frame.width) + le(frame.height) + [UInt8(flags)]
            if let local = frame.localPalette { out += Self.table(local) }
            out += [8] + Self.subBlocks(Self.lzw(frame.interlaced ? Self.interlace(frame) : frame.indices))
        }
        if trailer { out.append(0x3B) }
        return out
    }

    /// Offsets of each frame's image separator (0x2C) in `bytes`.
    var frameOffsets: [Int] {
        var offsets: [Int] = []
        var copy = self
        for index in frames.indices {
            copy.frames = Array(frames.prefix(index))
            copy.trailer = false
            // Everything before frame `index`, plus its graphic control extension (8 bytes).
            offsets.append(copy.bytes.count + 8)
        }
        return offsets
    }

    private func le(_ value: Int) -> [UInt8] { [UInt8(value & 0xFF), UInt8(value >> 8 & 0xFF)] }

    private static func table(_ colors: [[UInt8]]) -> [UInt8] {
        (0..<256).flatMap { $0 < colors.count ? colors[$0] : [0, 0, 0] }
    }

    private static func interlace(_ frame: Frame) -> [UInt8] {
        let order = [(0, 8), (4, 8), (2, 4), (1, 2)].flatMap { stride(from: $0.0, to: frame.height, by: $0.1) }
        return order.flatMap { frame.indices[($0 * frame.width)..<(($0 + 1) * frame.width)] }
    }

    private static func lzw(_ indices: [UInt8]) -> [UInt8] {
        var codes: [Int] = []
        for (n, index) in indices.enumerated() {
            if n % codesPerClear == 0 { codes.append(256) }
            codes.append(Int(index))
        }
        codes.append(257)
        var out: [UInt8] = []
        var bits = 0, count = 0
        for code in codes {
            bits |= code << count
            count += 9
            while count >= 8 { out.append(UInt8(bits & 0xFF)); bits >>= 8; count -= 8 }
        }
        if count > 0 { out.append(UInt8(bits & 0xFF)) }
        return out
    }

    private static func subBlocks(_ data: [UInt8]) -> [UInt8] {
        stride(from: 0, to: data.count, by: 255).flatMap { start -> [UInt8] in
            let end = min(data.count, start + 255)
            return [UInt8(end - start)] + data[start..<end]
        } + [0]
    }
}
