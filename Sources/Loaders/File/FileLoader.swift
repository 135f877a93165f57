import Foundation
import Logging
import Synchronization
import WebImageCore

/// Loads images from local files: `file://` URLs and URLs that are absolute paths.
///
/// Reads stream in chunks off the caller's thread, reporting progress and stopping promptly when
/// cancelled. A server that turns user input into URLs restricts the loader to the directories it
/// means to serve:
///
/// ```swift
/// ImageLoadersManager.shared.addLoader(FileLoader(allowedRoots: [URL(fileURLWithPath: "/srv/images")]))
/// ```
public final class FileLoader: ImageLoader {
    /// The loader's settings.
    public let configuration: FileLoaderConfiguration
    private let coders: ImageCodersManager
    /// Where the loader logs, at `debug`: reads refused (outside the allowed roots, over the size limit,
    /// by a request modifier). A request's `ImageContext/logger` wins.
    public let logger: Logger

    /// A loader with `configuration`; `coders` decode partial images for `.progressiveLoad`.
    public init(
        configuration: FileLoaderConfiguration = FileLoaderConfiguration(), coders: ImageCodersManager = .shared,
        logger: Logger = Logger(label: "SwiftWebImage.FileLoader")
    ) {
        self.configuration = configuration
        self.coders = coders
        self.logger = logger
    }

    /// A loader restricted to `allowedRoots`.
    public convenience init(allowedRoots: [URL]) {
        var configuration = FileLoaderConfiguration()
        configuration.allowedRoots = allowedRoots
        self.init(configuration: configuration)
    }

    /// Registers a default file loader with the shared loaders manager.
    public static func register() {
        ImageLoadersManager.shared.addLoader(FileLoader())
    }

    public func canRequestImage(for url: URL) -> Bool {
        url.isFileURL || (url.scheme == nil && url.path.hasPrefix("/"))
            || (configuration.localRoot != nil && url.scheme?.lowercased() == Self.localScheme)
    }

    /// The scheme of imgproxy's local sources, read under ``FileLoaderConfiguration/localRoot``.
    public static let localScheme = "local"

    public func requestImage(
        with url: URL, options: ImageOptions, context: ImageContext,
        progress: LoadProgressHandler?,
        completion: @escaping @Sendable (Result<LoadedImage, ImageError>) -> Void
    ) -> any ImageOperation {
        let operation = FileReadOperation()
        var configuration = self.configuration
        // The context's request modifier may refuse a file or point at another one; the allowed roots
        // still apply to wherever it points.
        var url = url
        let logger = context.logger ?? self.logger
        if let modifier = context.requestModifier {
            guard let modified = modifier.modify(ImageRequest(url: url)) else {
                logger.debug("request refused by the request modifier", metadata: ["path": "\(url.path)"])
                completion(.failure(.requestRefused(reason: "the request modifier refused \(url.path)")))
                return operation
            }
            url = modified.url
        }
        if url.scheme?.lowercased() == Self.localScheme {
            guard let root = configuration.localRoot else {
                completion(.failure(.requestRefused(reason: "local sources are off: no local root")))
                return operation
            }
            // The path under the root; the reader's root check refuses whatever resolves outside it.
            url = root.appendingPathComponent(url.path)
            configuration.allowedRoots = [root]
        }
        let decoder: (any IncrementalImageDecoder)? =
            options.contains(.progressiveLoad) && progress != nil
            ? (context.imageCoder as? any ProgressiveImageCoder ?? coders)
                .makeIncrementalDecoder(options: context.decodeOptions(for: options, url: url))
            : nil
        let reader = FileReader(
            path: url.path, configuration: configuration, operation: operation,
            progress: progress, decoder: decoder.map(DecoderBox.init), logger: logger)
        DispatchQueue.global(qos: options.contains(.highPriority) ? .userInitiated : .utility).async {
            let result = reader.read()
            operation.markReaderDone()
            if !operation.isCancelled { completion(result) }
        }
        return operation
    }
}

/// Cancellation flag of one file read.
final class FileReadOperation: ImageOperation {
    /// Set once by `cancel()`; read between chunks.
    private let cancelled = Atomic<Bool>(false)
    /// Set once when the reader has stopped, finished or not (lets tests observe a prompt stop).
    private let readerDone = Atomic<Bool>(false)
    func cancel() { cancelled.store(true, ordering: .relaxed) }
    var isCancelled: Bool { cancelled.load(ordering: .relaxed) }
    var isReaderDone: Bool { readerDone.load(ordering: .acquiring) }
    func markReaderDone() { readerDone.store(true, ordering: .releasing) }
}

/// Hands a progressive decoder to the one reader thread that uses it.
struct DecoderBox: @unchecked Sendable {
    // Unchecked: the decoder is created by `requestImage` and then used only by the single
    // `FileReader.read()` call that owns it; no two threads ever touch it.
    let decoder: any IncrementalImageDecoder
}
