import Foundation
import Synchronization

/// Several loaders acting as one (SDWebImage's `SDImageLoadersManager`): the last registered loader
/// that can request a URL handles it.
public final class ImageLoadersManager: ImageLoader {
    /// The process-wide loaders manager the default ``ImageManager`` uses; plugins register into it.
    public static let shared = ImageLoadersManager()

    /// Registered loaders, newest last. Copied out before use so loaders run outside the lock.
    private let registered: Locked<[any ImageLoader]>

    /// A manager over `loaders` (the last one that accepts a URL loads it).
    public init(loaders: [any ImageLoader] = []) {
        registered = Locked(loaders)
    }

    /// The registered loaders, oldest first.
    public var loaders: [any ImageLoader] {
        get { registered.withLock { $0 } }
        set { registered.withLock { $0 = newValue } }
    }

    /// Registers `loader`; it is asked before every loader registered earlier.
    public func addLoader(_ loader: any ImageLoader) {
        registered.withLock { $0.append(loader) }
    }

    /// Unregisters every loader of `type`.
    public func removeLoaders<L: ImageLoader>(ofType type: L.Type) {
        registered.withLock { $0.removeAll { $0 is L } }
    }

    /// The loader that will handle `url`.
    public func loader(for url: URL) -> (any ImageLoader)? {
        loaders.reversed().first { $0.canRequestImage(for: url) }
    }

    public func canRequestImage(for url: URL) -> Bool { loader(for: url) != nil }

    public func requestImage(
        with url: URL, options: ImageOptions, context: ImageContext,
        progress: LoadProgressHandler?,
        completion: @escaping @Sendable (Result<LoadedImage, ImageError>) -> Void
    ) -> any ImageOperation {
        guard let loader = loader(for: url) else {
            completion(.failure(.invalidURL(url.absoluteString)))
            return FinishedOperation()
        }
        return loader.requestImage(
            with: url, options: options, context: context, progress: progress, completion: completion)
    }

    public func shouldBlockFailedURL(_ url: URL, error: ImageError) -> Bool {
        loader(for: url)?.shouldBlockFailedURL(url, error: error) ?? ImageError.isPermanentFailure(error)
    }
}

/// An operation that already ended; cancelling it does nothing.
public final class FinishedOperation: ImageOperation {
    /// An operation that is already over.
    public init() {}
    public func cancel() {}
    public var isCancelled: Bool { false }
}
