/// Shrinks rows by whole factors (`factorX` x `factorY` blocks averaged, premultiplied for RGBA) while they
/// stream in, handing each reduced row to a ``SeparableResampler`` as floats, unrounded.
///
/// This is the cheap first step of a large downscale, as libvips's and Pillow's thumbnails do it: block
/// averaging down to about twice the target, then the real filter for the rest. The second step still has
/// a couple of source pixels per output pixel to weigh, so the result is close to filtering the whole image
/// (and far cheaper: a Lanczos kernel stretched over 16 source pixels reads 100 of them per output pixel).
struct BoxReducer {
    let factorX: Int
    let factorY: Int
    private let sourceWidth: Int
    private let sourceHeight: Int
    private let channels: Int
    private let premultiply: Bool
    private let reducedWidth: Int
    /// Sums of the current block row, `reducedWidth` pixels.
    private var sums: [Float]
    private var rowsInBlock = 0
    private var sourceRow = 0
    private(set) var next: SeparableResampler

    init(
        sourceWidth: Int, sourceHeight: Int, layout: PixelLayout, factorX: Int, factorY: Int,
        then next: (_ width: Int, _ height: Int) -> SeparableResampler
    ) {
        self.factorX = factorX
        self.factorY = factorY
        self.sourceWidth = sourceWidth
        self.sourceHeight = sourceHeight
        channels = layout.bytesPerPixel
        premultiply = layout == .rgba8
        reducedWidth = (sourceWidth + factorX - 1) / factorX
        sums = [Float](repeating: 0, count: reducedWidth * layout.bytesPerPixel)
        self.next = next(reducedWidth, (sourceHeight + factorY - 1) / factorY)
    }

    /// The size rows have after reduction.
    static func reducedSize(source: Int, factor: Int) -> Int { (source + factor - 1) / factor }

    mutating func consume(row: UnsafeBufferPointer<UInt8>) {
        if factorX == 1 && factorY == 1 { return next.consume(row: row) }
        precondition(row.count >= sourceWidth * channels, "row is shorter than the source width")
        let channels = self.channels, factorX = self.factorX, sourceWidth = self.sourceWidth
        let premultiply = self.premultiply
        sums.withUnsafeMutableBufferPointer { sums in
            guard let sums = sums.baseAddress, let src = row.baseAddress else { return }
            for x in 0..<sourceWidth {
                let o = (x / factorX) * channels
                let s = x * channels
                if premultiply {
                    let alpha = Float(src[s + 3])
                    let factor = alpha * (1 / 255)
                    sums[o] += Float(src[s]) * factor
                    sums[o + 1] += Float(src[s + 1]) * factor
                    sums[o + 2] += Float(src[s + 2]) * factor
                    sums[o + 3] += alpha
                } else {
                    for c in 0..<channels { sums[o + c] += Float(src[s + c]) }
                }
            }
        }
        rowsInBlock += 1
        sourceRow += 1
        if rowsInBlock == factorY || sourceRow == sourceHeight { flush() }
    }

    private mutating func flush() {
        let channels = self.channels
        let lastBlockWidth = sourceWidth - (reducedWidth - 1) * factorX
        let rows = Float(rowsInBlock)
        for x in 0..<reducedWidth {
            let scale = 1 / (rows * Float(x == reducedWidth - 1 ? lastBlockWidth : factorX))
            for c in 0..<channels { sums[x * channels + c] *= scale }
        }
        let reduced = sums
        reduced.withUnsafeBufferPointer { next.consume(floats: $0) }
        for i in sums.indices { sums[i] = 0 }
        rowsInBlock = 0
    }
}
