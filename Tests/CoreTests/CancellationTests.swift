import Foundation
import Synchronization
import Testing
import WebImageTestSupport

@testable import WebImageCore

@Suite("Cancellation and exactly-once completion")
struct CancellationTests {
    @Test func cancellingOneCallerKeepsTheOtherCallersLoad() async throws {
        let h = Harness()
        let url = Harness.url("shared.raw")
        h.loader.serve(RawImageCoder.solid(), at: url)
        h.loader.holdResponses = true
        let first = Answers()
        let second = Answers()
        let a = h.manager.loadImage(with: url, completion: first.handler)
        h.manager.loadImage(with: url, completion: second.handler)
        while h.loader.heldCount < 2 { await Task.yield() }
        a.cancel()
        h.loader.releaseAll()
        let answer = await second.next()
        #expect(answer.value?.image.width == 4)
        #expect(first.all.isEmpty)
        #expect(h.manager.runningOperationCount == 0)
    }

    @Test func cancelAllStopsEveryRunningLoad() async throws {
        let h = Harness()
        h.loader.holdResponses = true
        let answers = Answers()
        for i in 0..<10 {
            let url = Harness.url("\(i).raw")
            h.loader.serve(RawImageCoder.solid(), at: url)
            h.manager.loadImage(with: url, completion: answers.handler)
        }
        while h.loader.heldCount < 10 { await Task.yield() }
        #expect(h.manager.runningOperationCount == 10)
        h.manager.cancelAll()
        #expect(h.manager.runningOperationCount == 0)
        h.loader.releaseAll()
        #expect(answers.all.isEmpty)
    }

    @Test func thousandConcurrentLoadsWithRandomCancellationEachEndExactlyOnce() async throws {
        let h = Harness()
        let count = 1000
        for i in 0..<50 { h.loader.serve(RawImageCoder.solid(gray: UInt8(i)), at: Harness.url("\(i).raw")) }
        let completions = Locked([Int](repeating: 0, count: count))
        let (ended, endedContinuation) = AsyncStream<Void>.makeStream()
        var operations: [ImageLoadOperation] = []
        for i in 0..<count {
            let operation = h.manager.loadImage(with: Harness.url("\(i % 50).raw"), options: [.fromLoaderOnly]) { _ in
                completions.withLock { $0[i] += 1 }
                endedContinuation.yield()
            }
            operations.append(operation)
        }
        for operation in operations where Bool.random() { operation.cancel() }
        // A cancel that lost the race against the completion is a no-op: that load is not cancelled.
        let cancelled = operations.filter(\.isCancelled).count
        var completed = 0
        if count - cancelled > 0 {
            for await _ in ended {
                completed += 1
                if completed == count - cancelled { break }
            }
        }
        while h.manager.runningOperationCount > 0 { await Task.yield() }
        let counts = completions.withLock { $0 }
        for (i, operation) in operations.enumerated() {
            #expect(counts[i] == (operation.isCancelled ? 0 : 1), "load \(i) completed \(counts[i]) times")
        }
        #expect(cancelled > 0 && cancelled < count)
    }

    @Test func asyncLoadThrowsCancelledWhenItsTaskIsCancelled() async throws {
        let h = Harness()
        let url = Harness.url("slow.raw")
        h.loader.serve(RawImageCoder.solid(), at: url)
        h.loader.holdResponses = true
        let task = Task { try await h.manager.image(for: url) }
        while h.loader.heldCount < 1 { await Task.yield() }
        task.cancel()
        await #expect(throws: ImageError.cancelled) { try await task.value }
        #expect(h.manager.runningOperationCount == 0)
        h.loader.releaseAll()
    }

    @Test func loadEventsDeliverProgressThenTheResult() async throws {
        let h = Harness()
        let url = Harness.url("events.raw")
        let data = RawImageCoder.solid(width: 8, height: 8)
        h.loader.serve(data, at: url)
        var progress: [Int64] = []
        var final: ImageLoadResult?
        for try await event in h.manager.loadEvents(for: url) {
            switch event {
            case .progress(let p): progress.append(p.receivedBytes)
            case .cached: Issue.record("no cached answer expected")
            case .completed(let result): final = result
            }
        }
        #expect(progress == [Int64(data.count)])
        #expect(final?.image.width == 8)
    }

    @Test func loadEventsThrowTheLoadsImageError() async {
        let h = Harness()
        let missing = Harness.url("missing.raw")
        do throws(ImageError) {
            for try await _ in h.manager.loadEvents(for: missing) {}
            Issue.record("a missing image must fail")
        } catch {
            // `error` is an ImageError here: the sequence's failure type is typed.
            #expect(error != .cancelled)
        }
    }

    @Test func breakingOutOfLoadEventsCancelsTheLoad() async throws {
        let h = Harness()
        let url = Harness.url("stop.raw")
        h.loader.serve(RawImageCoder.solid(), at: url)
        h.loader.holdResponses = true
        let task = Task {
            for try await _ in h.manager.loadEvents(for: url) {}
        }
        while h.loader.heldCount < 1 { await Task.yield() }
        task.cancel()
        _ = try? await task.value
        while h.manager.runningOperationCount > 0 { await Task.yield() }
        h.loader.releaseAll()
        #expect(h.manager.runningOperationCount == 0)
    }
}
