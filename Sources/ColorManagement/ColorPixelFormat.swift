internal import CLCMS2
import WebImageCore

/// The 8-bit pixel formats a colour transform reads, and what each means to Little CMS.
enum ColorPixelFormat: Hashable, Sendable {
    case gray8
    case rgb8
    /// RGB with straight alpha, which the transform copies unchanged.
    case rgba8
    /// CMYK as JPEG files store it (Adobe-inverted: 255 is no ink), converted to `.rgb8`.
    case invertedCMYK8

    init(_ layout: PixelLayout) {
        switch layout {
        case .gray8: self = .gray8
        case .rgb8: self = .rgb8
        case .rgba8: self = .rgba8
        }
    }

    // lcms2.h builds its TYPE_* formatters with function-like macros, which Swift does not import; these
    // are the same bit fields: COLORSPACE_SH(s) = s << 16, FLAVOR_SH(f) = f << 13, EXTRA_SH(e) = e << 7,
    // CHANNELS_SH(c) = c << 3, BYTES_SH(b) = b; PT_GRAY = 3, PT_RGB = 4, PT_CMYK = 6.
    private static let gray8Type: UInt32 = 3 << 16 | 1 << 3 | 1  // TYPE_GRAY_8
    private static let rgb8Type: UInt32 = 4 << 16 | 3 << 3 | 1  // TYPE_RGB_8
    private static let rgba8Type: UInt32 = 4 << 16 | 1 << 7 | 3 << 3 | 1  // TYPE_RGBA_8
    private static let cmyk8ReversedType: UInt32 = 6 << 16 | 1 << 13 | 4 << 3 | 1  // TYPE_CMYK_8_REV

    /// The lcms formatter of the input.
    var inputType: UInt32 {
        switch self {
        case .gray8: Self.gray8Type
        case .rgb8: Self.rgb8Type
        case .rgba8: Self.rgba8Type
        case .invertedCMYK8: Self.cmyk8ReversedType
        }
    }

    /// The lcms formatter of the output: the same layout, except CMYK, which becomes RGB.
    var outputType: UInt32 {
        switch self {
        case .gray8: Self.gray8Type
        case .rgb8, .invertedCMYK8: Self.rgb8Type
        case .rgba8: Self.rgba8Type
        }
    }

    var inputBytesPerPixel: Int {
        switch self {
        case .gray8: 1
        case .rgb8: 3
        case .rgba8, .invertedCMYK8: 4
        }
    }

    var outputLayout: PixelLayout {
        switch self {
        case .gray8: .gray8
        case .rgb8, .invertedCMYK8: .rgb8
        case .rgba8: .rgba8
        }
    }

    /// The data colour space a profile must have to describe these pixels.
    var profileColorSpace: cmsColorSpaceSignature {
        switch self {
        case .gray8: cmsSigGrayData
        case .rgb8, .rgba8: cmsSigRgbData
        case .invertedCMYK8: cmsSigCmykData
        }
    }
}
