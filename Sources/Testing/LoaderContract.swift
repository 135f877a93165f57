import Foundation
import WebImageCore

/// The duties every `ImageLoader` has, checked against URLs it serves.
///
/// ```swift
/// @Test func myLoaderKeepsItsContract() async {
///     let violations = await LoaderContract(loader: AssetLoader(), url: assetURL).violations()
///     #expect(violations.isEmpty, "\(violations)")
/// }
/// ```
///
/// The checks: a load of `url` completes exactly once with the bytes and non-decreasing progress; among
/// many loads cancelled at random moments, none completes twice and every load not cancelled completes;
/// the context's request modifier is asked for each request and a refusal fails the load with
/// `.requestRefused`; and, when `missingURL` is given, a load of it fails.
public struct LoaderContract: Sendable {
    /// The loader under test.
    public var loader: any ImageLoader
    /// A URL the loader serves.
    public var url: URL
    /// A URL the loader handles but cannot load (nil skips the check).
    public var missingURL: URL?
    /// Loads started in the cancellation check.
    public var concurrentLoads = 64
    /// Longest wait for a completion before the check reports it missing: generous, because a loaded test
    /// machine may leave a finished load unobserved for a long time.
    public var timeout: Duration = .seconds(120)

    /// Checks of `loader` loading `url` (and failing `missingURL`).
    public init(loader: any ImageLoader, url: URL, missingURL: URL? = nil) {
        self.loader = loader
        self.url = url
        self.missingURL = missingURL
    }

    /// Every violation found; empty when the loader keeps its contract.
    public func violations() async -> [ContractViolation] {
        var found: [ContractViolation] = []
        if !loader.canRequestImage(for: url) {
            return [ContractViolation(duty: "canRequestImage", detail: "refuses \(url)")]
        }
        found += await checkSingleLoad()
        found += await checkCancellation()
        found += await checkRequestModifier()
        if let missingURL {
            let outcome = await Probe.load(loader, missingURL, context: ImageContext(), timeout: timeout)
            if case .success? = outcome.results.first {
                found.append(ContractViolation(duty: "missing URL", detail: "\(missingURL) loaded"))
            }
        }
        return found
    }

    private func checkSingleLoad() async -> [ContractViolation] {
        let outcome = await Probe.load(loader, url, context: ImageContext(), timeout: timeout)
        var found: [ContractViolation] = []
        switch outcome.results.count {
        case 0: found.append(ContractViolation(duty: "completion", detail: "no completion within \(timeout)"))
        case 1: break
        default: found.append(ContractViolation(duty: "completion", detail: "\(outcome.results.count) completions"))
        }
        if case .failure(let error)? = outcome.results.first {
            found.append(ContractViolation(duty: "load", detail: "\(url) failed: \(error)"))
        }
        let received = outcome.progress.map(\.receivedBytes)
        if zip(received, received.dropFirst()).contains(where: { $0 > $1 }) {
            found.append(ContractViolation(duty: "progress", detail: "byte counts went down: \(received)"))
        }
        if case .success(let loaded)? = outcome.results.first, let last = received.last,
            last > Int64(loaded.data.count)
        {
            found.append(
                ContractViolation(
                    duty: "progress",
                    detail: "reported \(last) bytes for a body of \(loaded.data.count)"))
        }
        return found
    }

    private func checkCancellation() async -> [ContractViolation] {
        let probes = (0..<concurrentLoads).map { _ in Probe() }
        var operations: [any ImageOperation] = []
        for (index, probe) in probes.enumerated() {
            let operation = loader.requestImage(
                with: url, options: [], context: ImageContext(), progress: nil,
                completion: probe.complete)
            operations.append(operation)
            // Cancel every other load, some at once and some after the others started.
            if index % 2 == 1 && index % 4 == 1 { operation.cancel() }
        }
        for (index, operation) in operations.enumerated() where index % 4 == 3 { operation.cancel() }
        var found: [ContractViolation] = []
        for (index, probe) in probes.enumerated() {
            let cancelled = index % 2 == 1
            let results =
                cancelled ? await probe.settled(within: .milliseconds(200)) : await probe.results(within: timeout)
            if results.count > 1 {
                found.append(
                    ContractViolation(duty: "completion", detail: "load \(index) completed \(results.count) times"))
            }
            // A cancelled load may still have completed first (a race the protocol allows), so only
            // loads not cancelled must complete.
            if !cancelled && results.isEmpty {
                found.append(
                    ContractViolation(duty: "completion", detail: "load \(index), not cancelled, never completed"))
            }
        }
        return found
    }

    private func checkRequestModifier() async -> [ContractViolation] {
        var found: [ContractViolation] = []
        let asked = RecordingModifier(refuse: false)
        var context = ImageContext()
        context.requestModifier = asked
        _ = await Probe.load(loader, url, context: context, timeout: timeout)
        if asked.requests.isEmpty {
            found.append(ContractViolation(duty: "request modifier", detail: "the context's modifier was not asked"))
        }
        let refusing = RecordingModifier(refuse: true)
        context.requestModifier = refusing
        let outcome = await Probe.load(loader, url, context: context, timeout: timeout)
        switch outcome.results.first {
        case .failure(.requestRefused)?: break
        case let other?:
            found.append(
                ContractViolation(
                    duty: "request modifier",
                    detail: "a refused request ended with \(other), not .requestRefused"))
        case nil:
            found.append(ContractViolation(duty: "request modifier", detail: "a refused request never completed"))
        }
        return found
    }
}

/// A request modifier that records what it is asked, and refuses everything when told to.
private final class RecordingModifier: RequestModifier {
    private let refuse: Bool
    /// Guards the requests seen so far.
    private let seen = Locked<[ImageRequest]>([])

    init(refuse: Bool) { self.refuse = refuse }

    var requests: [ImageRequest] { seen.withLock { $0 } }

    func modify(_ request: ImageRequest) -> ImageRequest? {
        seen.withLock { $0.append(request) }
        return refuse ? nil : request
    }
}

/// Collects the completions and progress of one load, and lets a check wait for them.
private final class Probe: Sendable {
    private struct State {
        var results: [Result<LoadedImage, ImageError>] = []
        var progress: [LoadProgress] = []
    }

    /// Guards what the load reported so far.
    private let state = Locked(State())

    var complete: @Sendable (Result<LoadedImage, ImageError>) -> Void {
        { [self] result in state.withLock { $0.results.append(result) } }
    }

    var record: LoadProgressHandler { { [self] progress in state.withLock { $0.progress.append(progress) } } }

    /// The completions once there is one, or none after `limit`.
    func results(within limit: Duration) async -> [Result<LoadedImage, ImageError>] {
        let deadline = ContinuousClock.now + limit
        while ContinuousClock.now < deadline {
            let results = state.withLock { $0.results }
            if !results.isEmpty {
                // Give a second completion a moment to show up.
                try? await Task.sleep(for: .milliseconds(20))
                return state.withLock { $0.results }
            }
            try? await Task.sleep(for: .milliseconds(5))
        }
        // A busy machine may resume this task only after the deadline: look once more before giving up.
        return state.withLock { $0.results }
    }

    /// The completions seen after waiting `time`, for loads that may never complete.
    func settled(within time: Duration) async -> [Result<LoadedImage, ImageError>] {
        try? await Task.sleep(for: time)
        return state.withLock { $0.results }
    }

    static func load(
        _ loader: any ImageLoader, _ url: URL, context: ImageContext,
        timeout: Duration
    ) async -> (results: [Result<LoadedImage, ImageError>], progress: [LoadProgress]) {
        let probe = Probe()
        _ = loader.requestImage(
            with: url, options: [], context: context, progress: probe.record,
            completion: probe.complete)
        let results = await probe.results(within: timeout)
        return (results, probe.state.withLock { $0.progress })
    }
}
