import Foundation
import Synchronization

/// One step of a load, as delivered by ``ImageManager/loadEvents(for:options:context:)``.
public enum ImageLoadEvent: Sendable {
    /// Bytes arrived (and maybe a partial image, with `.progressiveLoad`).
    case progress(LoadProgress)
    /// A non-final answer: the cached image of a `refreshCached` load, before revalidation.
    case cached(ImageLoadResult)
    /// The final answer; the sequence ends after it.
    case completed(ImageLoadResult)
}

extension ImageManager {
    /// Loads `url` and returns the final result. Cancelling the calling task cancels the load and
    /// throws `ImageError.cancelled`.
    ///
    /// ```swift
    /// let image = try await ImageManager.shared.image(for: url).image
    /// ```
    public func image(
        for url: URL, options: ImageOptions = [], context: ImageContext = ImageContext(),
        progress: LoadProgressHandler? = nil
    ) async throws(ImageError) -> ImageLoadResult {
        if Task.isCancelled { throw .cancelled }
        let gate = ResumeOnce()
        let operation = loadImage(with: url, options: options, context: context, progress: progress) { result in
            if case .success(let answer) = result, !answer.isFinal { return }
            gate.resume(result)
        }
        gate.onCancel { operation.cancel() }
        // A memory hit has answered already, on this thread: no continuation or cancellation handler is
        // needed (making them was an eighth of a memory hit's instructions).
        if let answer = gate.takeEarlyAnswer() { return try answer.get() }
        let result = await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in gate.set(continuation) }
        } onCancel: {
            gate.cancel(with: .failure(.cancelled))
        }
        return try result.get()
    }

    /// Loads `url` and delivers its progress, any cached answer and the final result as an
    /// `AsyncSequence`. Ending the iteration early cancels the load.
    ///
    /// ```swift
    /// for try await event in manager.loadEvents(for: url) {
    ///     if case .progress(let p) = event { print(p.receivedBytes) }
    /// }
    /// ```
    public func loadEvents(
        for url: URL, options: ImageOptions = [],
        context: ImageContext = ImageContext()
    ) -> ImageLoadEvents {
        ImageLoadEvents(
            AsyncThrowingStream { continuation in
                let operation = loadImage(
                    with: url, options: options, context: context,
                    progress: { progress in
                        continuation.yield(.progress(progress))
                    }
                ) { result in
                    switch result {
                    case .success(let answer) where !answer.isFinal:
                        continuation.yield(.cached(answer))
                    case .success(let answer):
                        continuation.yield(.completed(answer))
                        continuation.finish()
                    case .failure(let error):
                        continuation.finish(throwing: error)
                    }
                }
                continuation.onTermination = { termination in
                    if case .cancelled = termination { operation.cancel() }
                }
            })
    }
}

/// The events of one load (``ImageManager/loadEvents(for:options:context:)``), as an `AsyncSequence`
/// whose failures are ``ImageError``s, like ``ImageManager/image(for:options:context:progress:)``'s.
public struct ImageLoadEvents: AsyncSequence, Sendable {
    public typealias Element = ImageLoadEvent
    public typealias Failure = ImageError

    private let stream: AsyncThrowingStream<ImageLoadEvent, any Error>

    init(_ stream: AsyncThrowingStream<ImageLoadEvent, any Error>) { self.stream = stream }

    public func makeAsyncIterator() -> Iterator { Iterator(base: stream.makeAsyncIterator()) }

    /// Steps through the events; the load's failure is thrown as the ``ImageError`` it was.
    public struct Iterator: AsyncIteratorProtocol {
        public typealias Element = ImageLoadEvent
        public typealias Failure = ImageError

        var base: AsyncThrowingStream<ImageLoadEvent, any Error>.Iterator

        public mutating func next(isolation actor: isolated (any Actor)?) async throws(ImageError) -> ImageLoadEvent? {
            do {
                return try await base.next(isolation: actor)
            } catch let error as ImageError {
                throw error
            } catch {
                // The stream only ever finishes with the load's ImageError.
                throw .cancelled
            }
        }

        public mutating func next() async throws(ImageError) -> ImageLoadEvent? {
            try await next(isolation: nil)
        }
    }
}

/// Resumes a continuation exactly once, whichever of completion and cancellation comes first, and runs
/// the cancel action once it is known.
///
/// Not generic on purpose: in a generic class the runtime looks up the metadata of the lock and the
/// continuation (`Mutex<State<Value>>`, `CheckedContinuation<Value, Never>`) on every use, which was a
/// tenth of the instructions of a memory hit through ``ImageManager/image(for:options:context:progress:)``.
final class ResumeOnce: Sendable {
    typealias Value = Result<ImageLoadResult, ImageError>

    private struct State {
        var continuation: CheckedContinuation<Value, Never>?
        var pending: Value?
        var done = false
        var cancelAction: (@Sendable () -> Void)?
        var cancelled = false
    }

    /// Guards the continuation, a value that arrived before it, and the cancel action.
    private let state = Locked(State())

    func set(_ continuation: CheckedContinuation<Value, Never>) {
        let pending = state.withLock { state -> Value? in
            if let pending = state.pending { state.pending = nil; return pending }
            state.continuation = continuation
            return nil
        }
        if let pending { continuation.resume(returning: pending) }
    }

    /// The value, if it arrived before any continuation was set (and no continuation will be needed).
    func takeEarlyAnswer() -> Value? {
        state.withLock { state in
            defer { state.pending = nil }
            return state.pending
        }
    }

    func resume(_ value: Value) {
        let continuation = state.withLock { state -> CheckedContinuation<Value, Never>? in
            guard !state.done else { return nil }
            state.done = true
            guard let continuation = state.continuation else { state.pending = value; return nil }
            state.continuation = nil
            return continuation
        }
        continuation?.resume(returning: value)
    }

    func onCancel(_ action: @escaping @Sendable () -> Void) {
        let runNow = state.withLock { state in
            state.cancelAction = action
            return state.cancelled
        }
        if runNow { action() }
    }

    func cancel(with value: Value) {
        let action = state.withLock { state in
            state.cancelled = true
            return state.cancelAction
        }
        action?()
        resume(value)
    }
}
