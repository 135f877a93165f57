import Foundation
import Synchronization
import WebImageCore

/// A loader for `test://` URLs serving bytes from a dictionary, counting requests, and optionally
/// holding completions until the test releases them.
final class TestLoader: ImageLoader {
    struct Request: Sendable {
        let url: URL
        let options: ImageOptions
        let validators: CacheValidators?
    }

    private struct State {
        var bodies: [URL: Data] = [:]
        var errors: [URL: ImageError] = [:]
        var etags: [URL: String] = [:]
        var requests: [Request] = []
        var held: [(URL, @Sendable () -> Void)] = []
        var holdResponses = false
        var inFlight = 0
        var maxInFlight = 0
    }

    /// Guards the served bodies, the request log and the held completions.
    private let state = Locked(State())

    init(_ bodies: [URL: Data] = [:]) {
        state.withLock { $0.bodies = bodies }
    }

    func serve(_ data: Data, at url: URL, etag: String? = nil) {
        state.withLock {
            $0.bodies[url] = data
            $0.etags[url] = etag
            $0.errors[url] = nil
        }
    }

    func fail(_ url: URL, with error: ImageError) { state.withLock { $0.errors[url] = error } }

    /// While true, completions wait for ``releaseAll()``.
    var holdResponses: Bool {
        get { state.withLock { $0.holdResponses } }
        set { state.withLock { $0.holdResponses = newValue } }
    }

    var requests: [Request] { state.withLock { $0.requests } }
    var requestCount: Int { state.withLock { $0.requests.count } }
    var heldCount: Int { state.withLock { $0.held.count } }
    var maxInFlight: Int { state.withLock { $0.maxInFlight } }

    /// Runs every held completion.
    func releaseAll() {
        let held = state.withLock { state in
            defer { state.held.removeAll() }
            return state.held
        }
        for (_, complete) in held { complete() }
    }

    func canRequestImage(for url: URL) -> Bool { url.scheme == "test" }

    func requestImage(
        with url: URL, options: ImageOptions, context: ImageContext, progress: LoadProgressHandler?,
        completion: @escaping @Sendable (Result<LoadedImage, ImageError>) -> Void
    ) -> any ImageOperation {
        let operation = TestOperation()
        let result: Result<LoadedImage, ImageError> = state.withLock { state in
            state.requests.append(Request(url: url, options: options, validators: context.cacheValidators))
            if let error = state.errors[url] { return .failure(error) }
            guard let body = state.bodies[url] else { return .failure(.invalidStatusCode(404)) }
            let etag = state.etags[url]
            if let etag, context.cacheValidators?.etag == etag { return .failure(.cacheNotModified) }
            let response = ImageResponse(url: url, statusCode: 200, headers: etag.map { ["etag": $0] } ?? [:])
            return .success(LoadedImage(data: body, response: response))
        }
        let complete: @Sendable () -> Void = { [self] in
            state.withLock { $0.inFlight -= 1 }
            if operation.isCancelled { return }
            if case .success(let loaded) = result {
                progress?(
                    LoadProgress(receivedBytes: Int64(loaded.data.count), expectedBytes: Int64(loaded.data.count)))
            }
            completion(result)
        }
        let hold = state.withLock { state in
            state.inFlight += 1
            state.maxInFlight = max(state.maxInFlight, state.inFlight)
            if state.holdResponses { state.held.append((url, complete)) }
            return state.holdResponses
        }
        if !hold { DispatchQueue.global().async(execute: complete) }
        return operation
    }
}

final class TestOperation: ImageOperation {
    /// Set by `cancel()`.
    private let cancelled = Atomic<Bool>(false)
    func cancel() { cancelled.store(true, ordering: .relaxed) }
    var isCancelled: Bool { cancelled.load(ordering: .relaxed) }
}
