import Foundation
import Synchronization

/// Something that shows images: a widget, a terminal cell, a template slot (SDWebImage's
/// `UIView+WebCache`, without UIKit).
///
/// Implement ``setImage(_:)``; the extension gives you
/// ``setImage(with:placeholder:options:context:completed:progress:)``, which cancels the target's
/// previous load, shows the placeholder, reports progress and sets the result.
///
/// ```swift
/// final class Cell: WebImageTarget { func setImage(_ image: Image?) { draw(image) } }
/// cell.setImage(with: url, placeholder: spinner)
/// ```
public protocol WebImageTarget: AnyObject, Sendable {
    /// Shows `image` (nil clears the target). Called on ``imageQueue`` when there is one.
    func setImage(_ image: Image?)
    /// The queue `setImage` must run on (a UI thread's); nil calls it from whichever thread finishes.
    var imageQueue: DispatchQueue? { get }
}

extension WebImageTarget {
    public var imageQueue: DispatchQueue? { nil }

    /// Loads `url` into this target.
    ///
    /// Cancels the load this target started before under the same operation key (the context's
    /// ``ImageContext/operationKey``, else one per target), shows `placeholder` at once (after a
    /// failure only, with `.delayPlaceholder`), forwards progress, and sets the loaded image unless
    /// `.avoidAutoSetImage` is given. `completed` runs after the image is set.
    ///
    /// `completed` comes before `progress`, so a single trailing closure is the completion:
    /// `target.setImage(with: url) { result in ... }`; add progress as a second trailing closure
    /// (`... } progress: { progress in ... }`).
    @discardableResult
    public func setImage(
        with url: URL?, placeholder: Image? = nil, options: ImageOptions = [],
        context: ImageContext = ImageContext(), completed: ImageLoadCompletion? = nil,
        progress: LoadProgressHandler? = nil
    ) -> ImageLoadOperation? {
        TargetBinding.load(
            url, into: ObjectIdentifier(self), target: self, placeholder: placeholder,
            options: options, context: context, progress: progress, completed: completed,
            deliver: { [weak self] image in self?.deliver(image) })
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

    private func deliver(_ image: Image?) {
        if let queue = imageQueue {
            queue.async { self.setImage(image) }
        } else {
            setImage(image)
        }
    }
}

/// The load flow every kind of target shares: cancel the slot's previous load, show the placeholder,
/// load, deliver, and forget the operation when its final answer arrives.
enum TargetBinding {
    static func load(
        _ url: URL?, into identity: ObjectIdentifier, target: AnyObject & Sendable,
        placeholder: Image?, options: ImageOptions, context: ImageContext,
        progress: LoadProgressHandler?, completed: ImageLoadCompletion?,
        deliver: @escaping @Sendable (Image?) -> Void
    ) -> ImageLoadOperation? {
        let key = TargetRegistry.Key(target: identity, operation: context.operationKey ?? "")
        TargetRegistry.shared.cancel(key)
        TargetRegistry.shared.remember(url, for: key, target: target)
        if !options.contains(.delayPlaceholder) { deliver(placeholder) }
        guard let url else {
            if options.contains(.delayPlaceholder) { deliver(placeholder) }
            completed?(.failure(.invalidURL("")))
            return nil
        }
        let manager = context.customManager ?? .shared
        let operation = manager.loadImage(with: url, options: options, context: context, progress: progress) { result in
            let isFinal: Bool
            switch result {
            case .success(let answer):
                isFinal = answer.isFinal
                if !options.contains(.avoidAutoSetImage) { deliver(answer.image) }
            case .failure:
                isFinal = true
                if options.contains(.delayPlaceholder) { deliver(placeholder) }
            }
            if isFinal { TargetRegistry.shared.finished(key) }
            completed?(result)
        }
        TargetRegistry.shared.track(operation, for: key)
        return operation
    }
}

/// What each target is loading, keyed by target and operation key (SDWebImage keeps this in
/// associated objects, which Swift on Linux does not have).
final class TargetRegistry: Sendable {
    static let shared = TargetRegistry()

    struct Key: Hashable {
        let target: ObjectIdentifier
        let operation: String
    }

    private struct Entry {
        weak var target: (AnyObject & Sendable)?
        var url: URL?
        var operation: ImageLoadOperation?
    }

    /// Guards the per-target entries. Entries whose target is gone are dropped as new ones arrive.
    private let entries = Locked<[Key: Entry]>([:])

    func cancel(_ key: Key) {
        let operation = entries.withLock { entries -> ImageLoadOperation? in
            let operation = entries[key]?.operation
            entries[key]?.operation = nil
            return operation
        }
        operation?.cancel()
    }

    func remember(_ url: URL?, for key: Key, target: AnyObject & Sendable) {
        entries.withLock { entries in
            entries = entries.filter { $0.value.target != nil }
            entries[key] = Entry(target: target, url: url, operation: nil)
        }
    }

    func track(_ operation: ImageLoadOperation, for key: Key) {
        entries.withLock { entries in
            // A load that already finished (a memory hit) has nothing left to cancel.
            if !operation.isFinished { entries[key]?.operation = operation }
        }
    }

    func finished(_ key: Key) {
        entries.withLock { $0[key]?.operation = nil }
    }

    func url(for key: Key, target: AnyObject) -> URL? {
        entries.withLock { entries in
            guard let entry = entries[key], entry.target === target else { return nil }
            return entry.url
        }
    }
}
