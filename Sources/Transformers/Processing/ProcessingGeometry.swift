import WebImageCore

/// A gravity with imgproxy's offsets, for placing an inner rectangle in an outer one.
struct PlacedGravity: Hashable {
    var gravity: Gravity
    var offsetX: Double = 0
    var offsetY: Double = 0

    var text: String {
        "\(gravity)"
            + (offsetX == 0 && offsetY == 0
                ? "" : "+(\(ProcessingNumber.text(offsetX)),\(ProcessingNumber.text(offsetY)))")
    }

    /// The top-left corner of an `inner` rectangle in an `outer` one, kept inside it. Offsets of 1 or more
    /// are points times `scale`, smaller ones fractions of the outer side; they move away from the
    /// gravity's edges (rightwards and downwards for the centre). A focal point centres the inner rectangle
    /// on it. Halves round to even, as imgproxy's.
    func origin(outer: (width: Int, height: Int), inner: (width: Int, height: Int), scale: Double) -> (x: Int, y: Int) {
        var x: Int, y: Int
        if case .focalPoint(let fx, let fy) = gravity {
            x = Geometry.scaleToEven(outer.width, fx) - inner.width / 2
            y = Geometry.scaleToEven(outer.height, fy) - inner.height / 2
        } else {
            let dx =
                abs(offsetX) >= 1 ? Geometry.roundToEven(offsetX * scale) : Geometry.scaleToEven(outer.width, offsetX)
            let dy =
                abs(offsetY) >= 1 ? Geometry.roundToEven(offsetY * scale) : Geometry.scaleToEven(outer.height, offsetY)
            x = Geometry.roundToEven(Double(outer.width - inner.width + 1) / 2) + dx
            y = Geometry.roundToEven(Double(outer.height - inner.height + 1) / 2) + dy
            switch gravity {
            case .north, .northEast, .northWest: y = dy
            case .south, .southEast, .southWest: y = outer.height - inner.height - dy
            default: break
            }
            switch gravity {
            case .west, .northWest, .southWest: x = dx
            case .east, .northEast, .southEast: x = outer.width - inner.width - dx
            default: break
            }
        }
        return (max(0, min(x, outer.width - inner.width)), max(0, min(y, outer.height - inner.height)))
    }
}

/// imgproxy's size arithmetic (its `imath`), restated: plain rounding for scaled sizes, rounding half to
/// even for positions and padding.
enum Geometry {
    static func roundToEven(_ value: Double) -> Int { Int(value.rounded(.toNearestOrEven)) }
    static func scale(_ length: Int, _ factor: Double) -> Int {
        length == 0 ? 0 : Int((Double(length) * factor).rounded())
    }
    static func scaleToEven(_ length: Int, _ factor: Double) -> Int {
        length == 0 ? 0 : roundToEven(Double(length) * factor)
    }
    static func minNonZero(_ a: Int, _ b: Int) -> Int { a == 0 ? b : b == 0 ? a : min(a, b) }
}

/// The sizes imgproxy works out for one source size: what is cropped, what it is scaled to, the result crop,
/// the extend canvases and the dpr actually used. Depends only on the options and the source size, so every
/// frame of an animation gets the same plan.
struct ProcessingGeometryPlan: Equatable {
    /// The first crop, in source pixels (0: that side is not cropped).
    var cropWidth = 0, cropHeight = 0
    /// The size after scaling.
    var scaledWidth = 0, scaledHeight = 0
    /// The crop after scaling (fill), 0 for none.
    var resultCropWidth = 0, resultCropHeight = 0
    /// The requested size times the effective dpr and zoom (0 where none was asked).
    var targetWidth = 0, targetHeight = 0
    /// The canvas of `extend_aspect_ratio`, 0 when it does not apply.
    var aspectWidth = 0, aspectHeight = 0
    /// The dpr actually used: the requested one, lowered so the result is not larger than the source
    /// unless enlarging.
    var dprScale: Double = 1

    init(options o: ProcessingOptions, sourceWidth: Int, sourceHeight: Int) {
        cropWidth = Self.cropSize(sourceWidth, o.crop?.width ?? 0)
        cropHeight = Self.cropSize(sourceHeight, o.crop?.height ?? 0)
        let width = Geometry.minNonZero(cropWidth, sourceWidth)
        let height = Geometry.minNonZero(cropHeight, sourceHeight)
        var (wscale, hscale) = scales(o, width: width, height: height)
        sizes(o, width: width, height: height, wscale: wscale, hscale: hscale)
        // `max_result_dimension`: scale everything down (dpr included) until the result, with extend and
        // padding, fits; never below one pixel.
        guard let limit = o.maxResultDimension, limit > 0 else { return }
        var outW = Geometry.minNonZero(scaledWidth, resultCropWidth)
        var outH = Geometry.minNonZero(scaledHeight, resultCropHeight)
        if o.extend != nil {
            outW = max(outW, targetWidth); outH = max(outH, targetHeight)
        } else if o.extendAspectRatio != nil {
            outW = max(outW, aspectWidth); outH = max(outH, aspectHeight)
        }
        if let padding = o.padding {
            outW += Geometry.scaleToEven(padding.left, dprScale) + Geometry.scaleToEven(padding.right, dprScale)
            outH += Geometry.scaleToEven(padding.top, dprScale) + Geometry.scaleToEven(padding.bottom, dprScale)
        }
        guard outW > limit || outH > limit else { return }
        let down = Double(limit) / Double(max(outW, outH))
        wscale = max(wscale * down, 1 / Double(width))
        hscale = max(hscale * down, 1 / Double(height))
        dprScale *= down
        sizes(o, width: width, height: height, wscale: wscale, hscale: hscale)
    }

    /// The dpr padding is multiplied by.
    func paddingSide(_ points: Int) -> Int { Geometry.scaleToEven(points, dprScale) }

    /// A crop argument in pixels: 0 none, ≥ 1 pixels, below 1 a fraction (at least one pixel).
    static func cropSize(_ length: Int, _ value: Double) -> Int {
        value == 0 ? 0 : value >= 1 ? Int(value) : max(1, Geometry.scale(length, value))
    }

    /// The width and height scale factors; sets ``dprScale``.
    private mutating func scales(_ o: ProcessingOptions, width: Int, height: Int) -> (Double, Double) {
        let srcW = Double(width), srcH = Double(height)
        let dstW = o.width == 0 ? srcW : Double(o.width)
        let dstH = o.height == 0 ? srcH : Double(o.height)
        var wshrink = dstW == srcW ? 1 : srcW / dstW
        var hshrink = dstH == srcH ? 1 : srcH / dstH
        if wshrink != 1 || hshrink != 1 {
            var mode = o.resizingType
            if mode == .auto {
                // Fill when source and target have the same orientation, fit otherwise.
                mode = (srcW - srcH >= 0) == (dstW - dstH >= 0) ? .fill : .fit
            }
            if o.width == 0 && mode != .stretch {
                wshrink = hshrink
            } else if o.height == 0 && mode != .stretch {
                hshrink = wshrink
            } else if mode == .fit {
                wshrink = max(wshrink, hshrink); hshrink = wshrink
            } else if mode == .fill || mode == .fillDown {
                wshrink = min(wshrink, hshrink); hshrink = wshrink
            }
        }
        wshrink /= o.zoomWidth
        hshrink /= o.zoomHeight
        dprScale = o.devicePixelRatio
        if !o.enlarge {
            let smallest = min(wshrink, hshrink)
            if smallest < 1 {
                wshrink /= smallest
                hshrink /= smallest
                if o.extend == nil { dprScale /= smallest }
            }
            // Beyond this dpr the result would be larger than the source.
            dprScale = min(dprScale, min(wshrink, hshrink))
        }
        if o.minWidth > 0, srcW / Double(o.minWidth) < wshrink {
            let least = srcW / Double(o.minWidth)
            hshrink /= wshrink / least
            wshrink = least
        }
        if o.minHeight > 0, srcH / Double(o.minHeight) < hshrink {
            let least = srcH / Double(o.minHeight)
            wshrink /= hshrink / least
            hshrink = least
        }
        wshrink = min(wshrink / dprScale, srcW)
        hshrink = min(hshrink / dprScale, srcH)
        return (1 / wshrink, 1 / hshrink)
    }

    private mutating func sizes(_ o: ProcessingOptions, width: Int, height: Int, wscale: Double, hscale: Double) {
        aspectWidth = 0
        aspectHeight = 0
        targetWidth = Geometry.scale(o.width, dprScale * o.zoomWidth)
        targetHeight = Geometry.scale(o.height, dprScale * o.zoomHeight)
        scaledWidth = Geometry.scale(width, wscale)
        scaledHeight = Geometry.scale(height, hscale)
        resultCropWidth = targetWidth
        resultCropHeight = targetHeight
        if o.resizingType == .fillDown && !o.enlarge {
            // Never enlarge: crop the scaled image to the target's aspect ratio instead.
            let diffW = Double(targetWidth) / Double(scaledWidth)
            let diffH = Double(targetHeight) / Double(scaledHeight)
            if diffW > diffH && diffW > 1 {
                resultCropHeight = Geometry.scale(scaledWidth, Double(targetHeight) / Double(targetWidth))
                resultCropWidth = scaledWidth
            } else if diffH > diffW && diffH > 1 {
                resultCropWidth = Geometry.scale(scaledHeight, Double(targetWidth) / Double(targetHeight))
                resultCropHeight = scaledHeight
            }
        }
        if o.extendAspectRatio != nil && targetWidth > 0 && targetHeight > 0 {
            let outW = Geometry.minNonZero(scaledWidth, resultCropWidth)
            let outH = Geometry.minNonZero(scaledHeight, resultCropHeight)
            let diffW = Double(targetWidth) / Double(outW)
            let diffH = Double(targetHeight) / Double(outH)
            if diffH > diffW {
                aspectWidth = outW
                aspectHeight = Geometry.scale(outW, Double(targetHeight) / Double(targetWidth))
            } else if diffW > diffH {
                aspectWidth = Geometry.scale(outH, Double(targetWidth) / Double(targetHeight))
                aspectHeight = outH
            }
        }
    }
}

/// imgproxy's geometry as one step: crop, scale, crop to the result, then `inner` (effects and shape),
/// then extend, extend to the aspect ratio, and padding, all sized by ``ProcessingGeometryPlan`` for the
/// frame it gets. One step because extend and padding need the dpr worked out from the source's size.
struct ProcessingGeometry: FrameTransformer {
    let options: ProcessingOptions
    let inner: [any FrameTransformer]
    let background: RGBAColor

    var transformerKey: String {
        "geometry(\(options.geometryText))[" + inner.map(\.transformerKey).joined(separator: "/") + "]"
            + (background == .transparent ? "" : "bg\(background.hexString)")
    }

    func transformFrame(_ pixels: PixelBuffer) throws(ImageError) -> PixelBuffer {
        let plan = ProcessingGeometryPlan(options: options, sourceWidth: pixels.width, sourceHeight: pixels.height)
        var current = pixels
        if let crop = options.crop {
            let gravity =
                crop.gravity.map { PlacedGravity(gravity: $0, offsetX: crop.offsetX, offsetY: crop.offsetY) }
                ?? options.placedGravity
            current = try Self.crop(current, width: plan.cropWidth, height: plan.cropHeight, gravity: gravity, scale: 1)
        }
        current = try scaleAndCrop(current, plan)
        for step in inner { current = try step.transformFrame(current) }
        if let extend = options.extend {
            current = try embed(
                current, width: plan.targetWidth, height: plan.targetHeight,
                gravity: PlacedGravity(gravity: extend.gravity, offsetX: extend.offsetX, offsetY: extend.offsetY),
                scale: plan.dprScale)
        }
        if let aspect = options.extendAspectRatio, plan.aspectWidth > 0, plan.aspectHeight > 0 {
            current = try embed(
                current, width: plan.aspectWidth, height: plan.aspectHeight,
                gravity: PlacedGravity(gravity: aspect.gravity, offsetX: aspect.offsetX, offsetY: aspect.offsetY),
                scale: plan.dprScale)
        }
        if let padding = options.padding {
            current = try PaddingTransformer(
                top: plan.paddingSide(padding.top), right: plan.paddingSide(padding.right),
                bottom: plan.paddingSide(padding.bottom), left: plan.paddingSide(padding.left),
                background: background
            ).transformFrame(current)
        }
        return current
    }

    /// The frame scaled to the plan's size and cut to its result crop: in one resample of the kept region
    /// when the gravity is not smart (the same pixels as scaling, then cropping).
    private func scaleAndCrop(_ pixels: PixelBuffer, _ plan: ProcessingGeometryPlan) throws(ImageError) -> PixelBuffer {
        let width = max(1, plan.scaledWidth), height = max(1, plan.scaledHeight)
        let scales = width != pixels.width || height != pixels.height
        if scales {
            let (count, overflow) = width.multipliedReportingOverflow(by: height)
            if overflow || count > DecodeOptions.defaultMaxPixelCount {
                throw .imageTooLarge(width: width, height: height, limit: DecodeOptions.defaultMaxPixelCount)
            }
        }
        let keptWidth = min(Geometry.minNonZero(plan.resultCropWidth, width), width)
        let keptHeight = min(Geometry.minNonZero(plan.resultCropHeight, height), height)
        let crops = keptWidth < width || keptHeight < height
        if scales, crops, options.gravity != .smart {
            let origin = options.placedGravity.origin(
                outer: (width, height), inner: (keptWidth, keptHeight), scale: plan.dprScale)
            return ImageResampler.resample(
                pixels, scaledWidth: width, scaledHeight: height,
                region: (origin.x, origin.y, keptWidth, keptHeight), filter: options.resamplingFilter)
        }
        let scaled =
            scales
            ? ImageResampler.resample(pixels, width: width, height: height, filter: options.resamplingFilter) : pixels
        return try Self.crop(
            scaled, width: plan.resultCropWidth, height: plan.resultCropHeight,
            gravity: options.placedGravity, scale: plan.dprScale)
    }

    /// Keeps `width` x `height` (0 or more than the frame: all of that side) placed by `gravity`.
    static func crop(
        _ pixels: PixelBuffer, width: Int, height: Int, gravity: PlacedGravity,
        scale: Double
    ) throws(ImageError) -> PixelBuffer {
        if width == 0 && height == 0 { return pixels }
        let w = Geometry.minNonZero(width, pixels.width), h = Geometry.minNonZero(height, pixels.height)
        if w >= pixels.width && h >= pixels.height { return pixels }
        if case .smart = gravity.gravity {
            return try CropTransformer(width: w, height: h, gravity: .smart).transformFrame(pixels)
        }
        let origin = gravity.origin(outer: (pixels.width, pixels.height), inner: (w, h), scale: scale)
        return try CropTransformer(x: origin.x, y: origin.y, width: w, height: h).transformFrame(pixels)
    }

    /// The frame on a `width` x `height` canvas (0 or less than the frame: the frame's side) of the
    /// background, placed by `gravity`; nothing to do when the canvas is not larger.
    func embed(
        _ pixels: PixelBuffer, width: Int, height: Int, gravity: PlacedGravity,
        scale: Double
    ) throws(ImageError) -> PixelBuffer {
        if width <= pixels.width && height <= pixels.height { return pixels }
        let w = width <= 0 ? pixels.width : width, h = height <= 0 ? pixels.height : height
        let origin = gravity.origin(outer: (w, h), inner: (pixels.width, pixels.height), scale: scale)
        // A canvas narrower than the frame (possible with a minimum width) cuts it, as libvips' embed.
        var visible = pixels
        let keptWidth = min(pixels.width, w - origin.x), keptHeight = min(pixels.height, h - origin.y)
        if keptWidth < pixels.width || keptHeight < pixels.height {
            visible = try CropTransformer(x: 0, y: 0, width: keptWidth, height: keptHeight).transformFrame(pixels)
        }
        return try PaddingTransformer(
            top: origin.y, right: w - origin.x - keptWidth, bottom: h - origin.y - keptHeight,
            left: origin.x, background: background
        ).transformFrame(visible)
    }
}

extension ProcessingOptions {
    /// ``gravity`` with its offsets.
    var placedGravity: PlacedGravity {
        PlacedGravity(gravity: gravity, offsetX: gravityOffsetX, offsetY: gravityOffsetY)
    }

    /// Whether any option changes the geometry (and the geometry step is needed).
    var hasGeometry: Bool {
        width != 0 || height != 0 || crop != nil || minWidth != 0 || minHeight != 0 || zoomWidth != 1 || zoomHeight != 1
            || devicePixelRatio != 1 || extend != nil || extendAspectRatio != nil || padding != nil
            || (maxResultDimension ?? 0) > 0
    }

    /// The canonical segments that decide the geometry, for the step's key.
    var geometryText: String {
        var geometry = ProcessingOptions()
        geometry.crop = crop
        geometry.resizingType = resizingType
        geometry.width = width
        geometry.height = height
        geometry.enlarge = enlarge
        geometry.minWidth = minWidth
        geometry.minHeight = minHeight
        geometry.zoomWidth = zoomWidth
        geometry.zoomHeight = zoomHeight
        geometry.gravity = gravity
        geometry.gravityOffsetX = gravityOffsetX
        geometry.gravityOffsetY = gravityOffsetY
        geometry.resamplingFilter = resamplingFilter
        geometry.devicePixelRatio = devicePixelRatio
        geometry.extend = extend
        geometry.extendAspectRatio = extendAspectRatio
        geometry.padding = padding
        geometry.maxResultDimension = maxResultDimension
        return geometry.description
    }
}
