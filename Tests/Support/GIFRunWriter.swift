import Foundation

/// Writes GIF files whose frames are runs of single palette indices, compressed as well as GIF's LZW
/// allows: a run of n pixels takes about sqrt(2n) codes while the dictionary fills, then one 12-bit
/// code per 3,839 pixels (the dictionary is left full, a "deferred clear", which every decoder
/// supports). So a 10000x10000 frame of one color is about 40 KB. For ``HostileFiles``.
struct GIFRunWriter {
    /// One run: `count` pixels of palette index `index`.
    struct Run {
        var index: UInt8
        var count: Int
    }

    private(set) var bytes: [UInt8] = []

    /// Starts a file: header, logical screen of `screen` and, unless `palette` is nil, a 256-entry
    /// global color table holding `palette` (RGB triples) then black.
    init(screen: (width: Int, height: Int), palette: [[UInt8]]?) {
        bytes = Array("GIF89a".utf8) + Self.le(screen.width) + Self.le(screen.height)
        guard let palette else {
            bytes += [0, 0, 0]
            return
        }
        // Global color table present, 8 bits of color resolution, 256 entries.
        bytes += [0xF7, 0, 0]
        bytes += (0..<256).flatMap { $0 < palette.count ? palette[$0] : [0, 0, 0] }
    }

    /// A NETSCAPE2.0 loop extension; 0 loops forever.
    mutating func loop(_ count: Int) {
        bytes += [0x21, 0xFF, 11] + Array("NETSCAPE2.0".utf8) + [3, 1] + Self.le(count) + [0]
    }

    /// A frame at (`x`, `y`) of `width` x `height` whose pixels, row by row, are `runs` (their counts
    /// should add up to width x height), preceded by a graphic control extension.
    mutating func frame(
        x: Int = 0, y: Int = 0, width: Int, height: Int, runs: [Run], delay: Int = 10,
        disposal: Int = 0
    ) {
        bytes += [0x21, 0xF9, 4, UInt8(disposal << 2)] + Self.le(delay) + [0, 0]
        bytes += [0x2C] + Self.le(x) + Self.le(y) + Self.le(width) + Self.le(height) + [0]
        bytes += [UInt8(LZWRunEncoder.minimumCodeSize)]
        var encoder = LZWRunEncoder()
        for run in runs { encoder.append(run) }
        bytes += Self.subBlocks(encoder.finish())
    }

    /// A frame whose compressed data is damaged: its first code after the clear code names a dictionary
    /// entry that does not exist yet, which every decoder rejects. The block structure stays whole.
    mutating func damagedFrame(width: Int, height: Int, delay: Int = 10) {
        bytes += [0x21, 0xF9, 4, 0] + Self.le(delay) + [0, 0]
        bytes += [0x2C, 0, 0, 0, 0] + Self.le(width) + Self.le(height) + [0]
        bytes += [UInt8(LZWRunEncoder.minimumCodeSize)]
        var encoder = LZWRunEncoder()
        encoder.appendUndefinedCode()
        bytes += Self.subBlocks(encoder.finish())
    }

    /// Any bytes, for records the writer has no method for.
    mutating func raw(_ more: [UInt8]) { bytes += more }

    /// The trailer; returns the file.
    mutating func finish() -> Data {
        bytes.append(0x3B)
        return Data(bytes)
    }

    static func le(_ value: Int) -> [UInt8] { [UInt8(value & 0xFF), UInt8(value >> 8 & 0xFF)] }

    /// Data split into sub-blocks of at most 255 bytes, then the zero-length terminator.
    private static func subBlocks(_ data: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(data.count + data.count / 255 + 2)
        var start = 0
        while start < data.count {
            let end = min(data.count, start + 255)
            out.append(UInt8(end - start))
            out += data[start..<end]
            start = end
        }
        out.append(0)
        return out
    }
}

/// GIF's LZW for runs of one index, minimum code size 8. Each run starts with a clear code; its codes
/// then stand for 1, 2, 3, ... pixels (each the dictionary entry the previous code just made, the
/// "KwKwK" case decoders handle), until the dictionary is full and the longest entry repeats.
struct LZWRunEncoder {
    static let minimumCodeSize = 8
    private static let clearCode = 256, endCode = 257, firstEntry = 258
    /// The last dictionary entry (12-bit codes) and the pixels it stands for in a run.
    private static let lastEntry = 4095
    private static let longestString = lastEntry - firstEntry + 2

    private var out: [UInt8] = []
    private var pending: UInt64 = 0, pendingBits = 0
    /// Codes read since the last clear code: decoders widen codes as the dictionary grows with them.
    private var codesSinceClear = 0

    /// Code width decoders use for the code at `position` after a clear: 9 bits, one more each time
    /// the next entry reaches 512, 1024 and 2048; 12 from then on.
    private static func width(at position: Int) -> Int {
        switch position {
        case ...254: 9
        case ...766: 10
        case ...1790: 11
        default: 12
        }
    }

    mutating func append(_ run: GIFRunWriter.Run) {
        emit(Self.clearCode)
        codesSinceClear = 0
        var left = run.count
        while left > 0 {
            let length = min(left, codesSinceClear + 1, Self.longestString)
            emit(length == 1 ? Int(run.index) : Self.firstEntry + length - 2)
            left -= length
        }
    }

    /// A clear code followed by a code for an entry the dictionary does not hold.
    mutating func appendUndefinedCode() {
        emit(Self.clearCode)
        codesSinceClear = 0
        emit(Self.firstEntry + 40)
    }

    mutating func finish() -> [UInt8] {
        emit(Self.endCode)
        if pendingBits > 0 { out.append(UInt8(pending & 0xFF)) }
        return out
    }

    private mutating func emit(_ code: Int) {
        pending |= UInt64(code) << pendingBits
        pendingBits += Self.width(at: codesSinceClear)
        codesSinceClear += 1
        while pendingBits >= 8 {
            out.append(UInt8(pending & 0xFF))
            pending >>= 8
            pendingBits -= 8
        }
    }
}
