import WebImageCore

/// Draws a second image over the image (imgproxy's `watermark`, Nuke's composition): placed by a
/// ``Gravity``, moved by an offset, faded by an opacity, optionally scaled to a fraction of the image's
/// width. Mixing is premultiplied *source over*.
///
/// Offsets move the watermark inward from the edge or corner its gravity names (for ``Gravity/southEast``
/// a positive `offsetX` moves it left, away from the right edge); for ``Gravity/center`` and focal points
/// positive values move it right and down. With `replicates` (imgproxy's position `re`) the watermark is
/// tiled over the whole image instead, the offsets being the space between tiles, and the tiling centred
/// on the image as imgproxy (libvips' replicate, an odd count of tiles each way) centres it. An animated
/// watermark contributes its first frame.
///
/// ```swift
/// let stamped = try WatermarkTransformer(watermark: logo, gravity: .southEast, offsetX: 10, offsetY: 10, opacity: 0.5)
/// ```
public struct WatermarkTransformer: FrameTransformer {
    /// The watermark's pixels, upright.
    public let watermark: PixelBuffer
    /// Where the watermark sits (``Gravity/smart`` means centre).
    public let gravity: Gravity
    /// Horizontal distance from the anchoring edge, in pixels.
    public let offsetX: Int
    /// Vertical distance from the anchoring edge, in pixels.
    public let offsetY: Int
    /// How opaque the watermark is, 0...1.
    public let opacity: Double
    /// The watermark's width as a fraction of the image's (0 < scale ≤ 1, height in proportion), or nil
    /// to draw it at its own size.
    public let scale: Double?
    /// Whether the watermark is tiled over the whole image (``offsetX``/``offsetY`` are then the spacing
    /// between tiles, negative meaning none); false by default.
    public let replicates: Bool
    /// A hash of the watermark's pixels, computed once for the key.
    private let watermarkFingerprint: String

    /// Draws `watermark` at `gravity` (bottom-right by default) moved by `offsetX`/`offsetY`, with `opacity`
    /// (0...1) and, when `scale` is given, `scale` times the image's width wide (0 < scale ≤ 1). Bad values
    /// throw `ImageError/invalidParameter(name:reason:)`. With `replicates` the watermark is tiled over the
    /// image (the gravity is unused and the offsets are the spacing between tiles); false by default.
    public init(
        watermark: Image, gravity: Gravity = .southEast, offsetX: Int = 0, offsetY: Int = 0,
        opacity: Double = 1, scale: Double? = nil, replicates: Bool = false
    ) throws(ImageError) {
        guard (0...1).contains(opacity) else {
            throw .invalidParameter(name: "watermark opacity", reason: "\(opacity) is not within 0...1")
        }
        if let scale, !(scale > 0 && scale <= 1) {
            throw .invalidParameter(name: "watermark scale", reason: "\(scale) is not within 0 (excluded)...1")
        }
        let offsets = -CanvasLimit.maxPixelCount...CanvasLimit.maxPixelCount
        guard offsets.contains(offsetX), offsets.contains(offsetY) else {
            // Farther than any image can be wide, and near Int's ends the placement arithmetic would overflow.
            throw .invalidParameter(
                name: "watermark offset", reason: "(\(offsetX), \(offsetY)) is not within \(offsets)")
        }
        guard watermark.width > 0, watermark.height > 0 else {
            throw .invalidParameter(name: "watermark", reason: "the watermark image is empty")
        }
        try gravity.validate()
        self.watermark =
            watermark.isOrientationApplied || watermark.orientation == .up
            ? watermark.pixels : watermark.pixels.applyingOrientation(watermark.orientation)
        (self.gravity, self.offsetX, self.offsetY, self.opacity, self.scale) = (
            gravity, offsetX, offsetY, opacity, scale
        )
        self.replicates = replicates
        watermarkFingerprint = Self.fingerprint(self.watermark)
    }

    /// `watermark(WxH#hash,gravity,x,y,opacity,scale)`: the watermark's size and a hash of its pixels stand
    /// for the image.
    public var transformerKey: String {
        "watermark(\(watermark.width)x\(watermark.height)#\(watermarkFingerprint),\(gravity),\(offsetX),\(offsetY),"
            + "\(opacity),\(scale.map { "\($0)" } ?? "none")\(replicates ? ",tiled" : ""))"
    }

    /// The image with the watermark drawn over it.
    public func transformFrame(_ pixels: PixelBuffer) throws(ImageError) -> PixelBuffer {
        var mark = watermark
        if let scale {
            let width = max(1, Int((Double(pixels.width) * scale).rounded()))
            let height = max(1, Int((Double(watermark.height) * Double(width) / Double(watermark.width)).rounded()))
            try CanvasLimit.check(width: width, height: height)
            if width != mark.width || height != mark.height {
                mark = ImageResampler.resample(mark, width: width, height: height)
            }
        }
        if replicates {
            return pixels.compositing(
                tiled(mark, width: pixels.width, height: pixels.height), x: 0, y: 0, opacity: opacity)
        }
        let origin = gravity.regionOrigin(
            regionWidth: mark.width, regionHeight: mark.height,
            containerWidth: pixels.width, containerHeight: pixels.height)
        let shift = inwardShift()
        return pixels.compositing(mark, x: origin.x + shift.x, y: origin.y + shift.y, opacity: opacity)
    }

    /// A transparent layer of `width` x `height` holding `mark` repeated with the offsets as spacing: each
    /// tile is the mark with half the spacing before it and the rest after, the tiles counted odd each way
    /// and centred on the layer, as imgproxy pads and replicates its watermark.
    private func tiled(_ mark: PixelBuffer, width: Int, height: Int) -> PixelBuffer {
        let mark = mark.converted(to: .rgba8).packed()
        let (spaceX, spaceY) = (max(0, offsetX), max(0, offsetY))
        let (tileWidth, tileHeight) = (mark.width + spaceX, mark.height + spaceY)
        var (across, down) = ((width + tileWidth - 1) / tileWidth, (height + tileHeight - 1) / tileHeight)
        if across % 2 == 0 { across += 1 }
        if down % 2 == 0 { down += 1 }
        let (left, top) = ((across * tileWidth - width) / 2, (down * tileHeight - height) / 2)
        var layer = PixelBuffer(width: width, height: height, layout: .rgba8)
        let stride = layer.bytesPerRow
        layer.bytes.withUnsafeMutableBufferPointer { out in
            mark.bytes.withUnsafeBufferPointer { source in
                for row in 0..<height {
                    let markY = (row + top) % tileHeight - spaceY / 2
                    guard markY >= 0, markY < mark.height else { continue }
                    for column in 0..<width {
                        let markX = (column + left) % tileWidth - spaceX / 2
                        guard markX >= 0, markX < mark.width else { continue }
                        let from = markY * mark.bytesPerRow + markX * 4, to = row * stride + column * 4
                        for channel in 0..<4 { out[to + channel] = source[from + channel] }
                    }
                }
            }
        }
        return layer
    }

    /// The offset turned into a move: away from the right or bottom edge when the gravity anchors there.
    private func inwardShift() -> (x: Int, y: Int) {
        let fromRight = [Gravity.east, .northEast, .southEast].contains(gravity)
        let fromBottom = [Gravity.south, .southEast, .southWest].contains(gravity)
        return (fromRight ? -offsetX : offsetX, fromBottom ? -offsetY : offsetY)
    }

    /// FNV-1a over the watermark's bytes: a stable stand-in for the image in the key (Swift's `hashValue`
    /// changes from run to run).
    private static func fingerprint(_ pixels: PixelBuffer) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325  // FNV-1a 64-bit offset basis
        for byte in pixels.layout.rawValue.utf8 { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
        for byte in pixels.packed().bytes { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }  // FNV prime
        return String(hash, radix: 16)
    }
}
