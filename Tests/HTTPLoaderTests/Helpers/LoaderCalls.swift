import Foundation
import Logging
import Synchronization
import WebImageCore
import WebImageHTTPLoader

/// Loads `url` and waits for the one completion. A second completion would trap the checked
/// continuation, so every call also checks "exactly once".
func load(
    _ loader: HTTPLoader, _ url: URL, options: ImageOptions = [], context: ImageContext = ImageContext(),
    progress: LoadProgressHandler? = nil
) async -> Result<LoadedImage, ImageError> {
    await withCheckedContinuation { continuation in
        _ = loader.requestImage(with: url, options: options, context: context, progress: progress) {
            continuation.resume(returning: $0)
        }
    }
}

/// The error of a failed load, nil for a success.
func failure(_ result: Result<LoadedImage, ImageError>) -> ImageError? {
    if case .failure(let error) = result { return error }
    return nil
}

/// Waits, without polling, until `loader` has no live transfer: every transfer's end is announced by a
/// `.finished` event emitted after its bookkeeping is gone. `events` must be subscribed before the
/// transfers being waited for end (subscribe first, then check the count).
func waitUntilIdle(_ loader: HTTPLoader, events: AsyncStream<HTTPDownloadEvent>) async {
    if loader.liveTransferCount == 0 { return }
    for await event in events {
        if case .finished = event, loader.liveTransferCount == 0 { return }
    }
}

/// A loader with test-friendly settings: the PGM coder for Accept/progressive, short timeouts.
func makeLoader(
    logger: Logger = Logger(label: "SwiftWebImage.HTTPLoader"),
    _ adjust: (inout HTTPLoaderConfiguration) -> Void = { _ in }
) -> HTTPLoader {
    var configuration = HTTPLoaderConfiguration()
    configuration.coders = ImageCodersManager(coders: [PGMCoder()])
    configuration.connectTimeout = .seconds(5)
    configuration.timeout = .seconds(20)
    adjust(&configuration)
    return HTTPLoader(configuration: configuration, logger: logger)
}

/// Counts completions per caller, and resumes a waiter when a target total is reached.
final class CompletionCounter: Sendable {
    private struct State {
        var counts: [Int: Int] = [:]
        var total = 0
        var target: Int?
        var waiter: CheckedContinuation<Void, Never>?
    }

    /// Guards the counts and the one waiter.
    private let state = Locked(State())

    func record(_ index: Int) {
        let waiter: CheckedContinuation<Void, Never>? = state.withLock { state in
            state.counts[index, default: 0] += 1
            state.total += 1
            guard let target = state.target, state.total >= target, let waiter = state.waiter else { return nil }
            state.waiter = nil
            return waiter
        }
        waiter?.resume()
    }

    /// Returns once `target` completions were recorded in all.
    func wait(forTotal target: Int) async {
        await withCheckedContinuation { continuation in
            let ready = state.withLock { state -> Bool in
                if state.total >= target { return true }
                state.target = target
                state.waiter = continuation
                return false
            }
            if ready { continuation.resume() }
        }
    }

    func count(_ index: Int) -> Int { state.withLock { $0.counts[index] ?? 0 } }
    var total: Int { state.withLock { $0.total } }
}
