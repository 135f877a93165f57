import Foundation

/// The framework's main types, reachable through the `WebImage` namespace.
///
/// The module and its entry point are both called `WebImage`, so a module-qualified name such as
/// `WebImage.Image` would otherwise look inside the enum and not find the type. These aliases make those
/// spellings work, which matters when an app has an `Image` type of its own (SwiftUI's, a model's):
/// write `WebImage.Image` for ours.
extension WebImage {
    public typealias Image = WebImageCore.Image
    public typealias ImageFrame = WebImageCore.ImageFrame
    public typealias PixelBuffer = WebImageCore.PixelBuffer
    public typealias PixelLayout = WebImageCore.PixelLayout
    public typealias PixelSize = WebImageCore.PixelSize
    public typealias ImageFormat = WebImageCore.ImageFormat
    public typealias ImageError = WebImageCore.ImageError
    public typealias ImageManager = WebImageCore.ImageManager
    public typealias ImageOptions = WebImageCore.ImageOptions
    public typealias ImageContext = WebImageCore.ImageContext
    public typealias ImageLoadResult = WebImageCore.ImageLoadResult
    public typealias DecodeOptions = WebImageCore.DecodeOptions
    public typealias EncodeOptions = WebImageCore.EncodeOptions
    public typealias ImageCodersManager = WebImageCore.ImageCodersManager
    public typealias ImagePrefetcher = WebImageCore.ImagePrefetcher
}
