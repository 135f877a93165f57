import Foundation

/// Defaults for decode-only coders: a coder that only decodes implements `decodableFormats`,
/// `canDecode` and `decode`, and encoding reports `.unsupportedFormat`.
extension ImageCoder {
    /// No format, unless the coder says otherwise.
    public func canEncode(to format: ImageFormat) -> Bool { false }

    /// Throws `.unsupportedFormat`: the coder does not encode.
    public func encode(_ image: Image, as format: ImageFormat, options: EncodeOptions) throws(ImageError) -> Data {
        throw .unsupportedFormat(format)
    }
}
