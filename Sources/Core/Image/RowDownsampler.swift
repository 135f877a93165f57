/// Resamples an image to a new size while its rows arrive one by one, holding only the output and a
/// few accumulator rows: the streaming half of thumbnail decoding.
///
/// A large downscale is first block-averaged by whole factors (cheap, in integers, one row of sums held) to
/// no less than twice the target, then filtered with Lanczos3 (or the filter asked for) to the exact size,
/// as libvips's and Pillow's thumbnails do; ``ImageResampler/resample(_:width:height:)`` feeds the same
/// stages, so a streamed thumbnail has exactly the pixels of a full decode followed by that resample.
/// RGBA is mixed with premultiplied alpha, so transparent pixels do not bleed their (meaningless) color
/// into the edges of opaque ones.
///
/// ```swift
/// var sampler = RowDownsampler(sourceWidth: 4000, sourceHeight: 3000, layout: .rgb8, width: 256, height: 192)
/// for row in rows { row.withUnsafeBufferPointer { sampler.consume(row: $0) } }
/// let thumbnail = sampler.finish()
/// ```
public struct RowDownsampler {
    /// Width of the rows fed in.
    public let sourceWidth: Int
    /// Number of rows fed in.
    public let sourceHeight: Int
    /// Layout of the rows, in and out.
    public let layout: PixelLayout
    /// Width of the output.
    public let width: Int
    /// Height of the output.
    public let height: Int
    /// The fixed-point pipeline, or (when it would not stay within a level of Float) the Float one.
    private var fixedStages: FixedPointBoxReducer?
    private var floatStages: BoxReducer?

    /// Prepares to turn `sourceWidth` x `sourceHeight` rows of `layout` into `width` x `height` with
    /// `filter`: first whole-factor block averaging down to no less than
    /// ``ImageResampler/thumbnailReducingGap`` times the target, then `filter` (Lanczos3 by default).
    /// Sizes below 1 are taken as 1.
    public init(
        sourceWidth: Int, sourceHeight: Int, layout: PixelLayout, width: Int, height: Int,
        filter: ResamplingFilter = .lanczos3
    ) {
        self.init(
            sourceWidth: sourceWidth, sourceHeight: sourceHeight, layout: layout, width: width,
            height: height, filter: filter, arithmetic: .automatic)
    }

    /// As ``init(sourceWidth:sourceHeight:layout:width:height:filter:)``, on the engine `arithmetic` names.
    @_spi(ResamplingEngines)
    public init(
        sourceWidth: Int, sourceHeight: Int, layout: PixelLayout, width: Int, height: Int,
        filter: ResamplingFilter = .lanczos3, arithmetic: ResamplingArithmetic
    ) {
        let sourceWidth = max(1, sourceWidth), sourceHeight = max(1, sourceHeight)
        let width = max(1, width), height = max(1, height)
        self.sourceWidth = sourceWidth
        self.sourceHeight = sourceHeight
        self.layout = layout
        self.width = width
        self.height = height
        let gap = ImageResampler.thumbnailReducingGap
        let factorX = max(1, Int(Double(sourceWidth) / Double(width) / gap))
        let factorY = max(1, Int(Double(sourceHeight) / Double(height) / gap))
        // Which engine runs: see ResamplingArithmetic.
        let averages = factorX > 1 || factorY > 1
        if arithmetic.prefersFixedPoint(blockAverages: averages),
            let fixed = FixedPointBoxReducer(
                sourceWidth: sourceWidth, sourceHeight: sourceHeight, layout: layout,
                factorX: factorX, factorY: factorY, width: width, height: height,
                filter: filter, usesAVX2: arithmetic.allowsAVX2)
        {
            fixedStages = fixed
            return
        }
        floatStages = BoxReducer(
            sourceWidth: sourceWidth, sourceHeight: sourceHeight, layout: layout,
            factorX: factorX, factorY: factorY
        ) { reducedWidth, reducedHeight in
            SeparableResampler(
                sourceWidth: reducedWidth, sourceHeight: reducedHeight, layout: layout,
                width: width, height: height, filter: filter)
        }
    }

    /// Whether the fixed-point engine runs this resample (false: the Float one; see ``ResamplingArithmetic``).
    @_spi(ResamplingEngines) public var usesFixedPoint: Bool { fixedStages != nil }

    /// Whether every source row has been consumed.
    public var isComplete: Bool { fixedStages?.next.isComplete ?? floatStages!.next.isComplete }

    /// Feeds the next source row (`sourceWidth` pixels of `layout`, tightly packed or longer).
    public mutating func consume(row: UnsafeBufferPointer<UInt8>) {
        // Optional chaining mutates the stages in place (a switch over an enum would copy their buffers).
        if fixedStages != nil { fixedStages?.consume(row: row) } else { floatStages?.consume(row: row) }
    }

    /// The output rows finished so far (later rows zero): what a partial image shows while rows arrive.
    public var completedRows: PixelBuffer { fixedStages?.next.completedRows ?? floatStages!.next.completedRows }

    /// The resampled image. Rows never fed stay zero (transparent or black).
    public mutating func finish() -> PixelBuffer { fixedStages?.next.finish() ?? floatStages!.next.finish() }
}

/// A width and height in pixels. Any values are allowed: APIs that take a size say what a side of 0 (or
/// less) means there (``DecodeOptions/thumbnailPixelSize``: no limit on that side).
public struct PixelSize: Sendable, Hashable, CustomStringConvertible {
    /// Width in pixels; 0 means "no limit" in a thumbnail size.
    public var width: Int
    /// Height in pixels; 0 means "no limit" in a thumbnail size.
    public var height: Int
    /// A size of `width` x `height` pixels.
    public init(width: Int, height: Int) {
        self.width = width
        self.height = height
    }
    /// A square size.
    public init(_ side: Int) { self.init(width: side, height: side) }
    public var description: String { "\(width)x\(height)" }
}
