import Foundation

/// The framework's main types, reachable through the `WebImage` namespace.
///
/// The module and its entry point are both called `WebImage`, so a module-qualified name such as
/// `WebImage.Image` would otherwise look inside the enum and not find the type. These aliases make those
/// spellings work, which matters when an app has an `Image` type of its own (SwiftUI's, a model's):
/// write `WebImage.Image` for ours.
extension WebImage {
    /// `Image`, under the `WebImage` namespace.
    public typealias Image = WebImageCore.Image
    /// `ImageFrame`, under the `WebImage` namespace.
    public typealias ImageFrame = WebImageCore.ImageFrame
    /// `PixelBuffer`, under the `WebImage` namespace.
    public typealias PixelBuffer = WebImageCore.PixelBuffer
    /// `PixelLayout`, under the `WebImage` namespace.
    public typealias PixelLayout = WebImageCore.PixelLayout
    /// `PixelSize`, under the `WebImage` namespace.
    public typealias PixelSize = WebImageCore.PixelSize
    /// `ImageFormat`, under the `WebImage` namespace.
    public typealias ImageFormat = WebImageCore.ImageFormat
    /// `ImageError`, under the `WebImage` namespace.
    public typealias ImageError = WebImageCore.ImageError
    /// `ImageManager`, under the `WebImage` namespace.
    public typealias ImageManager = WebImageCore.ImageManager
    /// `ImageOptions`, under the `WebImage` namespace.
    public typealias ImageOptions = WebImageCore.ImageOptions
    /// `ImageContext`, under the `WebImage` namespace.
    public typealias ImageContext = WebImageCore.ImageContext
    /// `ImageLoadResult`, under the `WebImage` namespace.
    public typealias ImageLoadResult = WebImageCore.ImageLoadResult
    /// `DecodeOptions`, under the `WebImage` namespace.
    public typealias DecodeOptions = WebImageCore.DecodeOptions
    /// `EncodeOptions`, under the `WebImage` namespace.
    public typealias EncodeOptions = WebImageCore.EncodeOptions
    /// `ImageCodersManager`, under the `WebImage` namespace.
    public typealias ImageCodersManager = WebImageCore.ImageCodersManager
    /// `ImagePrefetcher`, under the `WebImage` namespace.
    public typealias ImagePrefetcher = WebImageCore.ImagePrefetcher
}
