import WebImageCore

/// The progressive decoder a transfer builds when a caller wants partial images.
struct PartialImageSource: Sendable {
    let coder: any ProgressiveImageCoder
    let options: DecodeOptions
}
