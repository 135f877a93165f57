/// Resizes whole pixel buffers, and picks thumbnail sizes.
///
/// ```swift
/// let half = ImageResampler.resample(photo, width: photo.width / 2, height: photo.height / 2, filter: .lanczos3)
/// ```
public enum ImageResampler {
    /// How much larger than the target a large downscale first block-averages to (a whole factor, so
    /// at least this much): 2, as libvips's `vips_resize` (its default "gap") and Pillow's `thumbnail`
    /// (`reducing_gap`). The filter then has at least two source pixels per output pixel to weigh, which
    /// keeps the result within a fraction of a dB of filtering the whole image, at a fraction of the work.
    public static let thumbnailReducingGap = 2.0

    /// `pixels` resampled to `width` x `height` with `filter`, separably, premultiplied for RGBA, exactly
    /// (the kernel stretched over the whole source, whatever the factor). Sizes below 1 are taken as 1;
    /// an empty source gives zero pixels (transparent black) of the asked size. The output is allocated
    /// at the size asked for: callers taking sizes from users bound them first (as `ResizeTransformer`
    /// does with the decoder's pixel limit).
    public static func resample(
        _ pixels: PixelBuffer, width: Int, height: Int,
        filter: ResamplingFilter
    ) -> PixelBuffer {
        resample(pixels, width: width, height: height, filter: filter, arithmetic: .automatic)
    }

    /// As ``resample(_:width:height:filter:)``, on the engine `arithmetic` names.
    @_spi(ResamplingEngines)
    public static func resample(
        _ pixels: PixelBuffer, width: Int, height: Int, filter: ResamplingFilter,
        arithmetic: ResamplingArithmetic
    ) -> PixelBuffer {
        let width = max(1, width), height = max(1, height)
        if pixels.width == width && pixels.height == height { return pixels }
        guard pixels.width > 0 && pixels.height > 0 else {
            return PixelBuffer(width: width, height: height, layout: pixels.layout)
        }
        if filter == .nearest { return nearest(pixels, width: width, height: height) }
        let columns = ResamplingWeights(source: pixels.width, destination: width, filter: filter)
        let rows = ResamplingWeights(source: pixels.height, destination: height, filter: filter)
        return run(pixels, columns: columns, rows: rows, arithmetic: arithmetic)
    }

    /// Whether the fixed-point engine's error bound keeps a `filter` resample of `layout` from
    /// `sourceWidth` x `sourceHeight` to `width` x `height` within one level of the Float engine (when it
    /// does not, ``ResamplingArithmetic/fixedPoint`` runs it in Float).
    @_spi(ResamplingEngines)
    public static func fixedPointStaysWithinOneLevel(
        sourceWidth: Int, sourceHeight: Int, layout: PixelLayout,
        width: Int, height: Int, filter: ResamplingFilter
    ) -> Bool {
        guard filter != .nearest, sourceWidth > 0, sourceHeight > 0 else { return false }
        return FixedPointResampler(
            sourceWidth: sourceWidth, sourceHeight: sourceHeight, layout: layout,
            width: max(1, width), height: max(1, height), filter: filter) != nil
    }

    /// `pixels` through the fixed-point engine when `arithmetic` prefers it and it stays within a level
    /// of Float for these weights, else through the Float engine.
    private static func run(
        _ pixels: PixelBuffer, columns: ResamplingWeights, rows: ResamplingWeights,
        arithmetic: ResamplingArithmetic
    ) -> PixelBuffer {
        if arithmetic.prefersFixedPoint(blockAverages: false),
            var engine = FixedPointResampler(
                sourceWidth: pixels.width, sourceHeight: pixels.height, layout: pixels.layout,
                columns: columns, rows: rows,
                input: pixels.layout == .rgba8 ? .premultiplied(fromBlockAverages: false) : .bytes,
                usesAVX2: arithmetic.allowsAVX2),
            arithmetic != .automatic || engine.outrunsFloat
        {
            engine.recomputesFrom(pixels)
            feed(pixels) { engine.consume(row: $0) }
            return engine.finish()
        }
        var engine = SeparableResampler(
            sourceWidth: pixels.width, sourceHeight: pixels.height, layout: pixels.layout,
            columns: columns, rows: rows)
        feed(pixels) { engine.consume(row: $0) }
        return engine.finish()
    }

    /// The `width` x `height` region at (`x`, `y`) of `pixels` resampled to `scaledWidth` x `scaledHeight`
    /// with `filter`, computed in one pass without the rest of the resized image: exactly the pixels of
    /// resampling the whole image, then cropping (kernels near the region's edges read the pixels around
    /// it). What a resize that fills a box and crops the overflow needs. The region is clamped to the
    /// scaled image; sizes below 1 are taken as 1.
    public static func resample(
        _ pixels: PixelBuffer, scaledWidth: Int, scaledHeight: Int,
        region: (x: Int, y: Int, width: Int, height: Int),
        filter: ResamplingFilter
    ) -> PixelBuffer {
        resample(
            pixels, scaledWidth: scaledWidth, scaledHeight: scaledHeight, region: region, filter: filter,
            arithmetic: .automatic)
    }

    /// As ``resample(_:scaledWidth:scaledHeight:region:filter:)``, on the engine `arithmetic` names.
    @_spi(ResamplingEngines)
    public static func resample(
        _ pixels: PixelBuffer, scaledWidth: Int, scaledHeight: Int,
        region: (x: Int, y: Int, width: Int, height: Int),
        filter: ResamplingFilter, arithmetic: ResamplingArithmetic
    ) -> PixelBuffer {
        let scaledWidth = max(1, scaledWidth), scaledHeight = max(1, scaledHeight)
        let x = min(max(0, region.x), scaledWidth - 1), y = min(max(0, region.y), scaledHeight - 1)
        let width = min(max(1, region.width), scaledWidth - x), height = min(max(1, region.height), scaledHeight - y)
        guard pixels.width > 0 && pixels.height > 0 else {
            return PixelBuffer(width: width, height: height, layout: pixels.layout)
        }
        if filter == .nearest || (scaledWidth == pixels.width && scaledHeight == pixels.height) {
            let whole = resample(
                pixels, width: scaledWidth, height: scaledHeight, filter: filter, arithmetic: arithmetic)
            return whole.cropped(x: x, y: y, width: width, height: height)
        }
        let columns = ResamplingWeights(
            source: pixels.width, destination: scaledWidth, filter: filter, outputs: x..<(x + width))
        let rows = ResamplingWeights(
            source: pixels.height, destination: scaledHeight, filter: filter, outputs: y..<(y + height))
        return run(pixels, columns: columns, rows: rows, arithmetic: arithmetic)
    }

    /// `pixels` resampled to `width` x `height` the way thumbnails are: a large downscale is first
    /// block-averaged by whole factors to no less than ``thumbnailReducingGap`` times the target, then
    /// Lanczos3 gives the exact size (what `RowDownsampler` does with streamed rows, to the same pixels).
    /// Sizes below 1 are taken as 1.
    public static func resample(_ pixels: PixelBuffer, width: Int, height: Int) -> PixelBuffer {
        resample(pixels, width: width, height: height, arithmetic: .automatic)
    }

    /// As ``resample(_:width:height:)``, on the engine `arithmetic` names.
    @_spi(ResamplingEngines)
    public static func resample(
        _ pixels: PixelBuffer, width: Int, height: Int,
        arithmetic: ResamplingArithmetic
    ) -> PixelBuffer {
        let width = max(1, width), height = max(1, height)
        if pixels.width == width && pixels.height == height { return pixels }
        guard pixels.width > 0 && pixels.height > 0 else {
            return PixelBuffer(width: width, height: height, layout: pixels.layout)
        }
        var sampler = RowDownsampler(
            sourceWidth: pixels.width, sourceHeight: pixels.height,
            layout: pixels.layout, width: width, height: height, arithmetic: arithmetic)
        feed(pixels) { sampler.consume(row: $0) }
        return sampler.finish()
    }

    /// Hands `pixels`' rows, top to bottom, to `consume`.
    private static func feed(_ pixels: PixelBuffer, _ consume: (UnsafeBufferPointer<UInt8>) -> Void) {
        pixels.bytes.withUnsafeBufferPointer { all in
            for y in 0..<pixels.height {
                consume(UnsafeBufferPointer(rebasing: all[(y * pixels.bytesPerRow)..<((y + 1) * pixels.bytesPerRow)]))
            }
        }
    }

    /// Nearest neighbour copies bytes: no premultiplication, no rounding, colours under zero alpha kept.
    private static func nearest(_ pixels: PixelBuffer, width: Int, height: Int) -> PixelBuffer {
        let bpp = pixels.layout.bytesPerPixel
        let columns = ResamplingWeights(source: pixels.width, destination: width, filter: .nearest).first
        let rows = ResamplingWeights(source: pixels.height, destination: height, filter: .nearest).first
        var out = [UInt8](repeating: 0, count: width * height * bpp)
        pixels.bytes.withUnsafeBufferPointer { src in
            out.withUnsafeMutableBufferPointer { dst in
                for y in 0..<height {
                    let row = rows[y] * pixels.bytesPerRow
                    for x in 0..<width {
                        let s = row + columns[x] * bpp, d = (y * width + x) * bpp
                        for c in 0..<bpp { dst[d + c] = src[s + c] }
                    }
                }
            }
        }
        return PixelBuffer(width: width, height: height, layout: pixels.layout, bytes: out)
    }

    /// The size a thumbnail of `width` x `height` gets for a requested `limit`: never larger than the
    /// source; with `preserveAspectRatio`, the largest size that fits inside `limit` keeping the
    /// shape, otherwise exactly `limit` (clamped to the source). A limit side of 0 or less means no limit
    /// on that side.
    public static func thumbnailSize(
        width: Int, height: Int, limit: PixelSize,
        preserveAspectRatio: Bool
    ) -> PixelSize {
        guard limit.width > 0 || limit.height > 0 else { return PixelSize(width: width, height: height) }
        if !preserveAspectRatio {
            let w = limit.width > 0 ? min(width, limit.width) : width
            let h = limit.height > 0 ? min(height, limit.height) : height
            return PixelSize(width: w, height: h)
        }
        let sx = limit.width > 0 ? Double(limit.width) / Double(width) : .infinity
        let sy = limit.height > 0 ? Double(limit.height) / Double(height) : .infinity
        let factor = min(1, min(sx, sy))
        return PixelSize(
            width: max(1, Int((Double(width) * factor).rounded())),
            height: max(1, Int((Double(height) * factor).rounded())))
    }
}
