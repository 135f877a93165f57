import Foundation
import Synchronization
import Testing
import WebImageTestSupport

@testable import WebImageCore

/// A target that records every image set on it.
final class RecordingTarget: WebImageTarget {
    /// Guards the images set so far (nil entries are clears).
    private let log = Locked<[Image?]>([])
    func setImage(_ image: Image?) { log.withLock { $0.append(image) } }
    var images: [Image?] { log.withLock { $0 } }
}

@Suite("WebImageTarget binding")
struct WebImageTargetTests {
    let placeholder = Image(pixels: PixelBuffer(width: 1, height: 1, layout: .gray8, bytes: [1]))

    func context(_ h: Harness) -> ImageContext {
        var context = ImageContext()
        context.customManager = h.manager
        return context
    }

    @Test func showsThePlaceholderThenTheImageAndRemembersTheURL() async throws {
        let h = Harness()
        let url = Harness.url("t.raw")
        h.loader.serve(RawImageCoder.solid(width: 5, height: 5), at: url)
        let target = RecordingTarget()
        let answers = Answers()
        target.setImage(with: url, placeholder: placeholder, context: context(h), completed: answers.handler)
        _ = await answers.next()
        #expect(target.images.map { $0?.width } == [1, 5])
        #expect(target.imageURL() == url)
    }

    @Test func aNewLoadCancelsThePreviousOneForTheSameOperationKey() async throws {
        let h = Harness()
        let first = Harness.url("first.raw")
        let second = Harness.url("second.raw")
        h.loader.serve(RawImageCoder.solid(width: 2, height: 2), at: first)
        h.loader.serve(RawImageCoder.solid(width: 3, height: 3), at: second)
        h.loader.holdResponses = true
        let target = RecordingTarget()
        let firstAnswers = Answers()
        let secondAnswers = Answers()
        target.setImage(with: first, context: context(h), completed: firstAnswers.handler)
        while h.loader.heldCount < 1 { await Task.yield() }
        target.setImage(with: second, context: context(h), completed: secondAnswers.handler)
        while h.loader.heldCount < 2 { await Task.yield() }
        h.loader.releaseAll()
        _ = await secondAnswers.next()
        #expect(firstAnswers.all.isEmpty)
        #expect(target.images.compactMap { $0?.width } == [3])
        #expect(target.imageURL() == second)
    }

    @Test func differentOperationKeysLoadSideBySide() async throws {
        let h = Harness()
        let a = Harness.url("ka.raw")
        let b = Harness.url("kb.raw")
        h.loader.serve(RawImageCoder.solid(), at: a)
        h.loader.serve(RawImageCoder.solid(), at: b)
        let target = RecordingTarget()
        var ctxA = context(h)
        ctxA.operationKey = "avatar"
        var ctxB = context(h)
        ctxB.operationKey = "banner"
        let answersA = Answers()
        let answersB = Answers()
        target.setImage(with: a, context: ctxA, completed: answersA.handler)
        target.setImage(with: b, context: ctxB, completed: answersB.handler)
        #expect(await answersA.next().value != nil)
        #expect(await answersB.next().value != nil)
        #expect(target.imageURL(operationKey: "avatar") == a)
        #expect(target.imageURL(operationKey: "banner") == b)
    }

    @Test func delayPlaceholderShowsThePlaceholderOnlyAfterFailure() async throws {
        let h = Harness()
        let url = Harness.url("missing.raw")
        let target = RecordingTarget()
        let answers = Answers()
        target.setImage(
            with: url, placeholder: placeholder, options: [.delayPlaceholder], context: context(h),
            completed: answers.handler)
        #expect(target.images.isEmpty)
        #expect(await answers.next().error == .invalidStatusCode(404))
        #expect(target.images.map { $0?.width } == [1])
    }

    @Test func avoidAutoSetImageLeavesSettingToTheCaller() async throws {
        let h = Harness()
        let url = Harness.url("manual.raw")
        h.loader.serve(RawImageCoder.solid(), at: url)
        let target = RecordingTarget()
        let answers = Answers()
        target.setImage(with: url, options: [.avoidAutoSetImage], context: context(h), completed: answers.handler)
        #expect(await answers.next().value != nil)
        #expect(target.images.compactMap { $0 }.isEmpty)
    }

    @Test func progressIsReported() async throws {
        let h = Harness()
        let url = Harness.url("prog.raw")
        let data = RawImageCoder.solid()
        h.loader.serve(data, at: url)
        let target = RecordingTarget()
        let received = Locked<[Int64]>([])
        let answers = Answers()
        target.setImage(
            with: url, context: context(h), completed: answers.handler,
            progress: { p in received.withLock { $0.append(p.receivedBytes) } })
        _ = await answers.next()
        #expect(received.withLock { $0 } == [Int64(data.count)])
    }
}

/// A main-actor target, as a view of a UI toolkit is.
@MainActor final class MainActorRecordingTarget: MainActorImageTarget {
    /// Images set so far, in order; only touched on the main actor.
    private(set) var images: [Image?] = []
    func setImage(_ image: Image?) { images.append(image) }
}

@Suite("Main-actor target binding")
struct MainActorImageTargetTests {
    @MainActor @Test func aTrailingClosureIsTheCompletionAndTheImageIsSetOnTheMainActor() async throws {
        let h = Harness()
        let url = Harness.url("main.raw")
        h.loader.serve(RawImageCoder.solid(width: 3, height: 2), at: url)
        let target = MainActorRecordingTarget()
        var context = ImageContext()
        context.customManager = h.manager
        let placeholder = Image(pixels: PixelBuffer(width: 1, height: 1, layout: .gray8, bytes: [9]))
        let result: Result<ImageLoadResult, ImageError> = await withCheckedContinuation { continuation in
            target.setImage(with: url, placeholder: placeholder, context: context) { result in
                continuation.resume(returning: result)
            }
            // The placeholder is shown before the call returns.
            #expect(target.images.count == 1 && target.images[0]?.width == 1)
        }
        let loaded = try result.get()
        #expect(loaded.image.width == 3)
        // The image is set by a hop to the main actor; yield until it ran.
        for _ in 0..<1_000 where target.images.count < 2 { await Task.yield() }
        #expect(target.images.count == 2 && target.images[1]?.width == 3)
        #expect(target.imageURL() == url)
    }
}
