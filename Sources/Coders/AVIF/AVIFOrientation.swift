internal import CAVIF
import WebImageCore

/// The orientation an AVIF's `irot` and `imir` properties give, as the EXIF orientation that turns the
/// stored pixels the same way. HEIF applies them in that order (rotation, then mirror), and they
/// replace any EXIF orientation tag (which AVIF readers ignore, as browsers do).
enum AVIFOrientation {
    /// EXIF orientations by (quarter turns clockwise, then mirrored left to right): every rotation and
    /// mirror of a rectangle is one of these eight.
    private static let byTurnsAndMirror: [Int: ImageOrientation] = [
        0: .up, 1: .right, 2: .down, 3: .left,
        4: .upMirrored, 5: .leftMirrored, 6: .downMirrored, 7: .rightMirrored,
    ]

    /// The orientation of `image`'s transform properties (`.up` when it has none).
    static func of(_ image: UnsafePointer<avifImage>) -> ImageOrientation {
        let flags = image.pointee.transformFlags
        let angle = flags & UInt32(AVIF_TRANSFORM_IROT.rawValue) != 0 ? Int(image.pointee.irot.angle) : 0
        let mirror = flags & UInt32(AVIF_TRANSFORM_IMIR.rawValue) != 0 ? Int(image.pointee.imir.mode) : nil
        return orientation(anticlockwiseQuarterTurns: angle, mirrorMode: mirror)
    }

    /// `irot` turns `angle` x 90 degrees anticlockwise; `imir` mode 0 exchanges top and bottom, mode 1
    /// left and right. A top-bottom mirror is a left-right mirror after half a turn.
    static func orientation(anticlockwiseQuarterTurns angle: Int, mirrorMode: Int?) -> ImageOrientation {
        var clockwiseTurns = (4 - angle % 4) % 4
        var mirrored = false
        switch mirrorMode {
        case 0?: clockwiseTurns = (clockwiseTurns + 2) % 4; mirrored = true
        case 1?: mirrored = true
        default: break
        }
        return byTurnsAndMirror[clockwiseTurns + (mirrored ? 4 : 0)] ?? .up
    }
}
