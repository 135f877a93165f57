import Foundation
import Synchronization
import WebImageTestSupport

@testable import WebImageCore

/// A manager over a ``TestLoader`` and ``TestCache`` that decodes ``RawImageCoder`` data.
struct Harness {
    let loader: TestLoader
    let cache: TestCache
    let manager: ImageManager

    /// `gate`, when given, holds the cache's disk-only stores (see ``TestCache/diskOnlyStoreGate``).
    init(diskOnlyStoresWaitFor gate: AsyncGate? = nil) {
        loader = TestLoader()
        cache = TestCache(diskOnlyStoresWaitFor: gate)
        manager = ImageManager(cache: cache, loader: loader, coders: ImageCodersManager(coders: [RawImageCoder()]))
    }

    static func url(_ name: String) -> URL { URL(string: "test://host/\(name)")! }
}

/// Collects the answers of callback-style loads, and lets a test await them in order.
final class Answers: Sendable {
    private let stream: AsyncStream<Result<ImageLoadResult, ImageError>>
    private let continuation: AsyncStream<Result<ImageLoadResult, ImageError>>.Continuation
    /// Guards every answer received so far.
    private let received = Locked<[Result<ImageLoadResult, ImageError>]>([])

    init() {
        (stream, continuation) = AsyncStream.makeStream()
    }

    var handler: ImageLoadCompletion {
        { [self] result in
            received.withLock { $0.append(result) }
            continuation.yield(result)
        }
    }

    var all: [Result<ImageLoadResult, ImageError>] { received.withLock { $0 } }

    /// The next answer; `.cancelled` when the waiting task is cancelled first (a test's time limit), so
    /// the test fails instead of the process trapping.
    func next() async -> Result<ImageLoadResult, ImageError> {
        var iterator = stream.makeAsyncIterator()
        return await iterator.next() ?? .failure(.cancelled)
    }
}

extension Result where Success == ImageLoadResult, Failure == ImageError {
    var value: ImageLoadResult? { try? get() }
    var error: ImageError? {
        if case .failure(let error) = self { return error }
        return nil
    }
}
