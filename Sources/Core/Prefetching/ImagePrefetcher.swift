import Foundation
import Synchronization

/// Loads lists of URLs into the cache ahead of need, a few at a time (SDWebImage's `SDWebImagePrefetcher`).
///
/// ```swift
/// let prefetcher = ImagePrefetcher(manager: .shared)
/// prefetcher.prefetch(urls, progress: { done, total in ... }) { finished, skipped in ... }
/// ```
public final class ImagePrefetcher: Sendable {
    /// The manager prefetches load through.
    public let manager: ImageManager
    /// Options for every prefetch load; `.lowPriority` by default so visible images go first.
    public let options: ImageOptions
    /// Context for every prefetch load.
    public let context: ImageContext

    /// Guards the number of loads allowed at once (3 by default) and the live tokens.
    private let state: Locked<(maxConcurrent: Int, tokens: [ObjectIdentifier: PrefetchToken])>

    /// A prefetcher loading through `manager`, at most `maxConcurrentPrefetchCount` at a time, with `options` and `context` for every load.
    public init(
        manager: ImageManager = .shared, maxConcurrentPrefetchCount: Int = 3,
        options: ImageOptions = [.lowPriority], context: ImageContext = ImageContext()
    ) {
        self.manager = manager
        self.options = options
        self.context = context
        state = Locked((max(1, maxConcurrentPrefetchCount), [:]))
    }

    /// How many URLs load at once. 3 by default.
    public var maxConcurrentPrefetchCount: Int {
        get { state.withLock { $0.maxConcurrent } }
        set { state.withLock { $0.maxConcurrent = max(1, newValue) } }
    }

    /// Prefetches `urls`. `progress` gets (finished + skipped, total) after each URL; `completion`
    /// gets (finished, skipped) once all are done, where skipped counts failures. Neither runs after
    /// the token is cancelled.
    @discardableResult
    public func prefetch(
        _ urls: [URL], progress: (@Sendable (_ done: Int, _ total: Int) -> Void)? = nil,
        completion: (@Sendable (_ finished: Int, _ skipped: Int) -> Void)? = nil
    ) -> PrefetchToken {
        let token = PrefetchToken(urls: urls, progress: progress, completion: completion) { [weak self] token in
            _ = self?.state.withLock { $0.tokens.removeValue(forKey: ObjectIdentifier(token)) }
        }
        state.withLock { $0.tokens[ObjectIdentifier(token)] = token }
        if urls.isEmpty {
            token.finishIfDone()
            return token
        }
        for _ in 0..<min(maxConcurrentPrefetchCount, urls.count) { startNext(token) }
        return token
    }

    /// Cancels every prefetch of this prefetcher.
    public func cancelAll() {
        let tokens = state.withLock { Array($0.tokens.values) }
        for token in tokens { token.cancel() }
    }

    private func startNext(_ token: PrefetchToken) {
        guard let (index, url) = token.claimNext() else { return }
        let operation = manager.loadImage(with: url, options: options, context: context) { [self] result in
            if case .success(let answer) = result, !answer.isFinal { return }
            token.record(index: index, success: (try? result.get()) != nil)
            startNext(token)
        }
        token.track(index: index, operation: operation)
    }
}

/// One `prefetch` call; cancel it to stop its remaining loads.
public final class PrefetchToken: ImageOperation {
    /// The URLs of this prefetch.
    public let urls: [URL]
    private let progress: (@Sendable (Int, Int) -> Void)?
    private let completion: (@Sendable (Int, Int) -> Void)?
    private let onEnd: @Sendable (PrefetchToken) -> Void

    private struct State {
        var next = 0
        var finished = 0
        var skipped = 0
        var cancelled = false
        var completed = false
        var operations: [Int: ImageLoadOperation] = [:]
    }

    /// Guards the cursor into `urls`, the counts and the operations in flight.
    private let state = Locked(State())
    /// The last count given to `progress`; held while calling it, which serializes the calls (taken
    /// before `state`, never after it, and `progress` may call ``cancel()``, which takes only `state`).
    private let reporting = Locked(0)

    init(
        urls: [URL], progress: (@Sendable (Int, Int) -> Void)?, completion: (@Sendable (Int, Int) -> Void)?,
        onEnd: @escaping @Sendable (PrefetchToken) -> Void
    ) {
        self.urls = urls
        self.progress = progress
        self.completion = completion
        self.onEnd = onEnd
    }

    /// URLs loaded successfully so far.
    public var finishedCount: Int { state.withLock { $0.finished } }
    /// URLs that failed so far.
    public var skippedCount: Int { state.withLock { $0.skipped } }
    public var isCancelled: Bool { state.withLock { $0.cancelled } }

    public func cancel() {
        let operations = state.withLock { state -> [ImageLoadOperation] in
            guard !state.cancelled, !state.completed else { return [] }
            state.cancelled = true
            return Array(state.operations.values)
        }
        for operation in operations { operation.cancel() }
        onEnd(self)
    }

    func claimNext() -> (Int, URL)? {
        state.withLock { state in
            guard !state.cancelled, state.next < urls.count else { return nil }
            defer { state.next += 1 }
            return (state.next, urls[state.next])
        }
    }

    func track(index: Int, operation: ImageLoadOperation) {
        let cancelled = state.withLock { state in
            // A load that finished synchronously has been recorded already; do not track it.
            if state.cancelled { return true }
            if operation.isFinished { return false }
            state.operations[index] = operation
            return false
        }
        if cancelled { operation.cancel() }
    }

    func record(index: Int, success: Bool) {
        let recorded = state.withLock { state -> Bool in
            guard !state.cancelled else { return false }
            state.operations.removeValue(forKey: index)
            if success { state.finished += 1 } else { state.skipped += 1 }
            return true
        }
        guard recorded else { return }
        // Loads end on several threads at once: report every count not reported yet, in order, so the
        // progress callback sees 1, 2, 3 ... each once. Whoever reports the last count finishes, so the
        // completion comes after the last progress.
        let reportedLast = reporting.withLock { reported -> Bool in
            let done = state.withLock { $0.finished + $0.skipped }
            guard reported < done else { return false }
            while reported < done {
                reported += 1
                progress?(reported, urls.count)
            }
            return reported == urls.count
        }
        if reportedLast { finishIfDone() }
    }

    func finishIfDone() {
        let counts = state.withLock { state -> (Int, Int)? in
            guard !state.cancelled, !state.completed, state.finished + state.skipped == urls.count else { return nil }
            state.completed = true
            return (state.finished, state.skipped)
        }
        guard let counts else { return }
        completion?(counts.0, counts.1)
        onEnd(self)
    }
}
