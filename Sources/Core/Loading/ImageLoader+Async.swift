import Foundation

extension ImageLoader {
    /// Loads `url` as one async call: the result the loader completes with, or `.cancelled` at once when
    /// the task is cancelled (the loader's operation is cancelled too). For callers that drive a loader
    /// themselves, outside the manager's flow (a server that downloads in one phase and decodes in
    /// another).
    public func load(
        _ url: URL, options: ImageOptions = [], context: ImageContext = ImageContext(),
        progress: LoadProgressHandler? = nil
    ) async -> Result<LoadedImage, ImageError> {
        let call = LoaderCall()
        return await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                call.begin(continuation)
                let operation = requestImage(with: url, options: options, context: context, progress: progress) {
                    result in
                    call.resume(result)
                }
                call.attach(operation)
            }
        } onCancel: {
            call.cancel()
        }
    }
}

/// Bridges one callback-style loader request into an async call: resumes exactly once, and cancels
/// the loader's operation when the task is cancelled (even if that happens before it was attached).
final class LoaderCall: Sendable {
    private struct State {
        var continuation: CheckedContinuation<Result<LoadedImage, ImageError>, Never>?
        var operation: (any ImageOperation)?
        var cancelled = false
        var resumed = false
    }

    /// Guards the continuation (resumed once), the loader's operation and the cancel flag.
    private let state = Locked(State())

    func begin(_ continuation: CheckedContinuation<Result<LoadedImage, ImageError>, Never>) {
        let cancelled = state.withLock { state in
            state.continuation = continuation
            return state.cancelled
        }
        if cancelled { resume(.failure(.cancelled)) }
    }

    func attach(_ operation: any ImageOperation) {
        let cancelled = state.withLock { state in
            state.operation = operation
            return state.cancelled
        }
        if cancelled { operation.cancel() }
    }

    func resume(_ result: Result<LoadedImage, ImageError>) {
        let continuation = state.withLock { state -> CheckedContinuation<Result<LoadedImage, ImageError>, Never>? in
            guard !state.resumed, let continuation = state.continuation else { return nil }
            state.resumed = true
            return continuation
        }
        continuation?.resume(returning: result)
    }

    func cancel() {
        let operation = state.withLock { state in
            state.cancelled = true
            return state.operation
        }
        operation?.cancel()
        resume(.failure(.cancelled))
    }
}
