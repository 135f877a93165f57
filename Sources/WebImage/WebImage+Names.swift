import Foundation

/// The framework's main types, reachable through the `WebImage` namespace.
///
/// The module and its entry point are both called `WebImage`, so a module-qualified name such as
/// `WebImage.Image` would otherwise look inside the enum and not find the type. These aliases make those
/// spellings work, which matters when an app has an `Image` type of its own (SwiftUI's, a model's):
/// write `WebImage.Image` for ours.
extension WebImage {
    /// ``WebImageCore/Image``, under the `WebImage` namespace.
    public typealias Image = WebImageCore.Image
    /// ``WebImageCore/ImageFrame``, under the `WebImage` namespace.
    public typealias ImageFrame = WebImageCore.ImageFrame
    /// ``WebImageCore/PixelBuffer``, under the `WebImage` namespace.
    public typealias PixelBuffer = WebImageCore.PixelBuffer
    /// ``WebImageCore/PixelLayout``, under the `WebImage` namespace.
    public typealias PixelLayout = WebImageCore.PixelLayout
    /// ``WebImageCore/PixelSize``, under the `WebImage` namespace.
    public typealias PixelSize = WebImageCore.PixelSize
    /// ``WebImageCore/ImageFormat``, under the `WebImage` namespace.
    public typealias ImageFormat = WebImageCore.ImageFormat
    /// ``WebImageCore/ImageError``, under the `WebImage` namespace.
    public typealias ImageError = WebImageCore.ImageError
    /// ``WebImageCore/ImageManager``, under the `WebImage` namespace.
    public typealias ImageManager = WebImageCore.ImageManager
    /// ``WebImageCore/ImageOptions``, under the `WebImage` namespace.
    public typealias ImageOptions = WebImageCore.ImageOptions
    /// ``WebImageCore/ImageContext``, under the `WebImage` namespace.
    public typealias ImageContext = WebImageCore.ImageContext
    /// ``WebImageCore/ImageLoadResult``, under the `WebImage` namespace.
    public typealias ImageLoadResult = WebImageCore.ImageLoadResult
    /// ``WebImageCore/DecodeOptions``, under the `WebImage` namespace.
    public typealias DecodeOptions = WebImageCore.DecodeOptions
    /// ``WebImageCore/EncodeOptions``, under the `WebImage` namespace.
    public typealias EncodeOptions = WebImageCore.EncodeOptions
    /// ``WebImageCore/ImageCodersManager``, under the `WebImage` namespace.
    public typealias ImageCodersManager = WebImageCore.ImageCodersManager
    /// ``WebImageCore/ImagePrefetcher``, under the `WebImage` namespace.
    public typealias ImagePrefetcher = WebImageCore.ImagePrefetcher
}
