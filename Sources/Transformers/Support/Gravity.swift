import WebImageCore

/// Where a region sits inside a larger one: which part of an image a crop keeps, where an image goes on a
/// larger canvas, where a watermark is placed.
///
/// The names are imgproxy's gravities (`ce`, `no`, `so`, `ea`, `we`, `noea`, `nowe`, `soea`, `sowe`, `fp`,
/// `sm`). An edge gravity centres the region along that edge; a corner puts it in the corner.
///
/// ```swift
/// let origin = Gravity.north.regionOrigin(regionWidth: 100, regionHeight: 100, in: pixels)
/// ```
public enum Gravity: Sendable, Hashable {
    /// Centred both ways (the default everywhere).
    case center
    /// Top edge, centred horizontally.
    case north
    /// Bottom edge, centred horizontally.
    case south
    /// Right edge, centred vertically.
    case east
    /// Left edge, centred vertically.
    case west
    /// Top-right corner.
    case northEast
    /// Top-left corner.
    case northWest
    /// Bottom-right corner.
    case southEast
    /// Bottom-left corner.
    case southWest
    /// The region is centred on this point as far as the image allows; `x` and `y` are 0...1 relative to the
    /// image's width and height (0, 0 is the top-left corner).
    case focalPoint(x: Double, y: Double)
    /// The region the eye is drawn to: the most detailed, saturated and skin-coloured window (an attention
    /// score like libvips's `smartcrop`). Where there is no image to look at (placing an image on a canvas)
    /// it means ``center``.
    case smart

    /// Top-left corner of a `regionWidth` x `regionHeight` region inside `pixels` (which is larger or equal).
    ///
    /// A region larger than the image in one direction gets origin 0 in that direction. ``smart`` looks at
    /// the pixels; every other gravity needs only their size.
    public func regionOrigin(regionWidth: Int, regionHeight: Int, in pixels: PixelBuffer) -> (x: Int, y: Int) {
        if case .smart = self {
            return SmartCrop.regionOrigin(
                regionWidth: min(regionWidth, pixels.width),
                regionHeight: min(regionHeight, pixels.height), in: pixels)
        }
        return regionOrigin(
            regionWidth: regionWidth, regionHeight: regionHeight,
            containerWidth: pixels.width, containerHeight: pixels.height)
    }

    /// Top-left corner of a `regionWidth` x `regionHeight` region inside a `containerWidth` x
    /// `containerHeight` one, from the sizes alone (``smart`` means ``center`` here).
    ///
    /// Used both ways round: the part of an image a crop keeps, and where a smaller image sits on a larger
    /// canvas. Where the region is larger than the container the origin is 0 in that direction.
    public func regionOrigin(
        regionWidth: Int, regionHeight: Int,
        containerWidth: Int, containerHeight: Int
    ) -> (x: Int, y: Int) {
        let spareX = max(0, containerWidth - regionWidth)
        let spareY = max(0, containerHeight - regionHeight)
        switch self {
        case .center, .smart: return (spareX / 2, spareY / 2)
        case .north: return (spareX / 2, 0)
        case .south: return (spareX / 2, spareY)
        case .east: return (spareX, spareY / 2)
        case .west: return (0, spareY / 2)
        case .northEast: return (spareX, 0)
        case .northWest: return (0, 0)
        case .southEast: return (spareX, spareY)
        case .southWest: return (0, spareY)
        case .focalPoint(let fx, let fy):
            return (
                Self.focalOrigin(fx, region: regionWidth, container: containerWidth, spare: spareX),
                Self.focalOrigin(fy, region: regionHeight, container: containerHeight, spare: spareY)
            )
        }
    }

    /// Throws `ImageError/invalidParameter(name:reason:)` for a focal point outside 0...1 (or not finite);
    /// every other gravity is valid. Initializers taking a gravity call this.
    public func validate(name: String = "gravity") throws(ImageError) {
        guard case .focalPoint(let x, let y) = self else { return }
        guard (0...1).contains(x), (0...1).contains(y) else {
            throw .invalidParameter(name: name, reason: "focal point (\(x), \(y)) must be within 0...1 both ways")
        }
    }

    /// One coordinate of a region centred on the focal point `fraction` of the container, kept inside it.
    private static func focalOrigin(_ fraction: Double, region: Int, container: Int, spare: Int) -> Int {
        guard fraction.isFinite else { return spare / 2 }
        let centre = fraction.clamped(to: 0...1) * Double(container)
        let origin = Int((centre - Double(region) / 2).rounded())
        return min(max(origin, 0), spare)
    }
}

extension Gravity: CustomStringConvertible {
    /// The canonical name, used in transformer keys: `center`, `northEast`, `smart`,
    /// `focalPoint(0.25,0.75)` (doubles in their shortest round-trip form).
    public var description: String {
        switch self {
        case .center: "center"
        case .north: "north"
        case .south: "south"
        case .east: "east"
        case .west: "west"
        case .northEast: "northEast"
        case .northWest: "northWest"
        case .southEast: "southEast"
        case .southWest: "southWest"
        case .focalPoint(let x, let y): "focalPoint(\(x),\(y))"
        case .smart: "smart"
        }
    }
}

extension Double {
    /// This value limited to `range`.
    func clamped(to range: ClosedRange<Double>) -> Double {
        Swift.min(Swift.max(self, range.lowerBound), range.upperBound)
    }
}
