import Foundation

/// A ``WebImageTarget`` for types isolated to the main actor: views and view models of a UI toolkit.
///
/// A `@MainActor` class cannot adopt ``WebImageTarget``, whose `setImage(_:)` may be called from any
/// thread. Adopt this protocol instead: `setImage(_:)` is always called on the main actor, and the same
/// loading API (cancel the previous load, placeholder, progress, completion) is available.
///
/// ```swift
/// @MainActor final class Thumbnail: MainActorImageTarget {
///     func setImage(_ image: Image?) { show(image) }
/// }
/// thumbnail.setImage(with: url) { result in print(result) }
/// ```
@MainActor
public protocol MainActorImageTarget: AnyObject, Sendable {
    /// Shows `image` (nil clears the target); called on the main actor.
    func setImage(_ image: Image?)
}

extension MainActorImageTarget {
    /// Loads `url` into this target; the image is set on the main actor. The same behaviour as
    /// ``WebImageTarget/setImage(with:placeholder:options:context:completed:progress:)``; `completed`
    /// and `progress` are called from the thread that finishes (hop to the main actor inside them if
    /// they touch the UI). The placeholder is set before this method returns.
    @discardableResult
    public func setImage(
        with url: URL?, placeholder: Image? = nil, options: ImageOptions = [],
        context: ImageContext = ImageContext(), completed: ImageLoadCompletion? = nil,
        progress: LoadProgressHandler? = nil
    ) -> ImageLoadOperation? {
        // The placeholder is shown here, synchronously; the shared flow then only shows it again after a
        // failure (which is what `.delayPlaceholder` means there), so a late hop never hides the image.
        if !options.contains(.delayPlaceholder) { setImage(placeholder) }
        return TargetBinding.load(
            url, into: ObjectIdentifier(self), target: self, placeholder: placeholder,
            options: options.union(.delayPlaceholder), context: context,
            progress: progress, completed: completed,
            deliver: { [weak self] image in
                Task { @MainActor in self?.setImage(image) }
            })
    }

    /// Cancels this target's running load for `operationKey` (nil: the default slot).
    public func cancelImageLoad(operationKey: String? = nil) {
        TargetRegistry.shared.cancel(TargetRegistry.Key(target: ObjectIdentifier(self), operation: operationKey ?? ""))
    }

    /// The URL most recently asked for with `operationKey` (nil: the default slot).
    public func imageURL(operationKey: String? = nil) -> URL? {
        TargetRegistry.shared.url(
            for: TargetRegistry.Key(target: ObjectIdentifier(self), operation: operationKey ?? ""),
            target: self)
    }
}
