import Foundation
import Synchronization
import Testing
import WebImageTestSupport

@testable import WebImageCore

@Suite("ImagePrefetcher")
struct PrefetcherTests {
    @Test func prefetchesEveryURLWithBoundedConcurrencyAndCountsFailures() async throws {
        let h = Harness()
        var urls: [URL] = []
        for i in 0..<20 {
            let url = Harness.url("p\(i).raw")
            if i % 5 != 0 { h.loader.serve(RawImageCoder.solid(), at: url) }  // every fifth is a 404
            urls.append(url)
        }
        let prefetcher = ImagePrefetcher(manager: h.manager, maxConcurrentPrefetchCount: 3)
        let progress = Locked<[Int]>([])
        let (finished, skipped): (Int, Int) = await withCheckedContinuation { continuation in
            prefetcher.prefetch(
                urls,
                progress: { done, total in
                    progress.withLock { $0.append(done) }
                    #expect(total == 20)
                }
            ) { finished, skipped in
                continuation.resume(returning: (finished, skipped))
            }
        }
        #expect(finished == 16 && skipped == 4)
        #expect(progress.withLock { $0 } == Array(1...20))
        #expect(h.loader.maxInFlight <= 3)
        #expect(h.loader.requestCount == 20)
        #expect(h.loader.requests.allSatisfy { $0.options.contains(.lowPriority) })
    }

    @Test func cancellingAPrefetchStopsItsRemainingLoads() async throws {
        let h = Harness()
        h.loader.holdResponses = true
        let urls = (0..<10).map { Harness.url("c\($0).raw") }
        for url in urls { h.loader.serve(RawImageCoder.solid(), at: url) }
        let prefetcher = ImagePrefetcher(manager: h.manager, maxConcurrentPrefetchCount: 2)
        let completed = Locked(false)
        let token = prefetcher.prefetch(urls, completion: { _, _ in completed.withLock { $0 = true } })
        while h.loader.heldCount < 2 { await Task.yield() }
        token.cancel()
        h.loader.releaseAll()
        #expect(h.loader.requestCount == 2)
        #expect(!completed.withLock { $0 })
        #expect(token.isCancelled)
        #expect(h.manager.runningOperationCount == 0)
    }

    @Test func cancelAllCancelsEveryPrefetch() async throws {
        let h = Harness()
        h.loader.holdResponses = true
        let prefetcher = ImagePrefetcher(manager: h.manager)
        let a = prefetcher.prefetch([Harness.url("a1.raw"), Harness.url("a2.raw")])
        let b = prefetcher.prefetch([Harness.url("b1.raw")])
        while h.loader.heldCount < 3 { await Task.yield() }
        prefetcher.cancelAll()
        #expect(a.isCancelled && b.isCancelled)
        h.loader.releaseAll()
    }

    @Test func emptyListCompletesAtOnce() async {
        let prefetcher = ImagePrefetcher(manager: Harness().manager)
        let counts: (Int, Int) = await withCheckedContinuation { continuation in
            prefetcher.prefetch([], completion: { continuation.resume(returning: ($0, $1)) })
        }
        #expect(counts == (0, 0))
    }
}
