import Foundation
import Testing
import WebImageCore
import WebImageJPEGCoder
import WebImageTestSupport

/// Progressive files of many tiny scans (each one cheap to store, each one a walk over every block of the
/// image) end with a typed error naming the budget: the scan cap, the work budget, the time limit, or
/// cancellation, whether the file is decoded whole, as a thumbnail, or fed in pieces.
@Suite("JPEG decode budgets")
struct JPEGDecodeBudgetTests {
    let coder = JPEGCoder()

    /// Whether `error` is the time budget running out (its values depend on the machine).
    static func isTimeBudget(_ error: ImageError?) -> Bool {
        if case .decodeBudgetExceeded(.time, _, _)? = error { return true }
        return false
    }

    @Test func scansPastTheCapAreRefusedWholeAsThumbnailAndIncrementally() throws {
        // 500 scans of 256 x 256 are well within the work budget: the cap is what refuses this file.
        let data = HostileFiles.manyScansProgressiveJPEG(scans: 2_000, size: PixelSize(256))
        let refused = ImageError.decodeBudgetExceeded(.progressiveScans, value: 501, limit: 500)
        #expect(throws: refused) { try coder.decode(data, options: DecodeOptions()) }
        // At 1/8 every scan of this gray file is passed over unread; the cap counts it all the same.
        #expect(throws: refused) { try coder.decode(data, options: DecodeOptions(thumbnailPixelSize: PixelSize(16))) }
        #expect(throws: refused) {
            try IncrementalFeed.run(coder.makeIncrementalDecoder(options: DecodeOptions()), data, chunk: 4096)
        }
        // Under the cap, the same kind of file decodes (libjpeg only warns about its odd progression).
        let few = HostileFiles.manyScansProgressiveJPEG(scans: 500, size: PixelSize(256))
        let image = try coder.decode(few, options: DecodeOptions())
        #expect(image.width == 256 && image.pixels.bytes.allSatisfy { $0 == 128 })
    }

    @Test func theScanCapIsAnOption() throws {
        let data = HostileFiles.manyScansProgressiveJPEG(scans: 20, size: PixelSize(64))
        #expect(throws: ImageError.decodeBudgetExceeded(.progressiveScans, value: 11, limit: 10)) {
            try coder.decode(data, options: DecodeOptions(maxProgressiveScanCount: 10))
        }
        #expect(try coder.decode(data, options: DecodeOptions(maxProgressiveScanCount: 20)).width == 64)
    }

    @Test func everyScanCountsTheOutputAgainstTheWorkBudget() throws {
        // A scan of this gray file's only component costs the whole image (512 x 512) of work.
        let data = HostileFiles.manyScansProgressiveJPEG(scans: 100, size: PixelSize(512))
        let output = 512 * 512
        let options = DecodeOptions(maxTotalPixelCount: 10 * output)
        #expect(throws: ImageError.decodeBudgetExceeded(.totalPixels, value: 11 * output, limit: 10 * output)) {
            try coder.decode(data, options: options)
        }
        // Fed in pieces, the same work is refused at the same scan.
        #expect(throws: ImageError.decodeBudgetExceeded(.totalPixels, value: 11 * output, limit: 10 * output)) {
            try IncrementalFeed.run(coder.makeIncrementalDecoder(options: options), data, chunk: 1000)
        }
        // Nine scans and the output pass fit exactly.
        let nine = HostileFiles.manyScansProgressiveJPEG(scans: 9, size: PixelSize(512))
        #expect(try coder.decode(nine, options: options).width == 512)
    }

    @Test func aThumbnailsScansCostAsMuchAsAtFullSize() throws {
        // libjpeg walks every block of a scan at any DCT scale (and when the scan is passed over unread, as
        // at 1/8 here), so each scan still costs the stored 512 x 512.
        let data = HostileFiles.manyScansProgressiveJPEG(scans: 100, size: PixelSize(512))
        let stored = 512 * 512
        for thumbnail in [100, 40] {  // DCT scales 1/4 and 1/8
            let options = DecodeOptions(thumbnailPixelSize: PixelSize(thumbnail), maxTotalPixelCount: 10 * stored)
            #expect(throws: ImageError.decodeBudgetExceeded(.totalPixels, value: 11 * stored, limit: 10 * stored)) {
                try coder.decode(data, options: options)
            }
        }
    }

    @Test func aProgressivePhotoCostsEachScansShareOfTheImage() throws {
        // libjpeg's standard script for 4:2:0 (10 scans): two scans of every component, four of luma
        // (4 of the 6 samples per MCU), four of one chroma component (1 of 6): 2 + 16/6 + 4/6 outputs,
        // plus one output pass: about 6.3 times the output, under 7.
        let data = try JPEGFixtures.encode(JPEGFixtures.detailed(width: 240, height: 160), progressive: true)
        let output = 240 * 160
        #expect(try coder.decode(data, options: DecodeOptions(maxTotalPixelCount: 7 * output)).width == 240)
        #expect(throws: ImageError.self) {
            try coder.decode(data, options: DecodeOptions(maxTotalPixelCount: 6 * output))
        }
    }

    @Test func aBaselineFileCostsItsOutputOnce() throws {
        let data = try JPEGFixtures.encode(JPEGFixtures.detailed(width: 100, height: 80), progressive: false)
        #expect(try coder.decode(data, options: DecodeOptions(maxTotalPixelCount: 8_000)).width == 100)
        #expect(throws: ImageError.decodeBudgetExceeded(.totalPixels, value: 8_000, limit: 7_999)) {
            try coder.decode(data, options: DecodeOptions(maxTotalPixelCount: 7_999))
        }
    }

    /// Thousands of scans with the scan cap and the work budget lifted: only the clock stops them.
    static func unboundedOptions(timeLimit: Duration?, cancellation: DecodeCancellation? = nil) -> DecodeOptions {
        DecodeOptions(
            maxTotalPixelCount: .max, maxProgressiveScanCount: .max, timeLimit: timeLimit, cancellation: cancellation)
    }

    /// About 5,000 walks over 65,536 blocks: seconds of work from a 70 KB file.
    static let slowFile = HostileFiles.manyScansProgressiveJPEG(scans: 5_000, size: PixelSize(2048))

    @Test func withTheCapsLiftedTheTimeLimitStopsTheDecode() throws {
        let whole = #expect(throws: ImageError.self) {
            try coder.decode(Self.slowFile, options: Self.unboundedOptions(timeLimit: .milliseconds(20)))
        }
        #expect(Self.isTimeBudget(whole), "\(String(describing: whole))")
        let thumbnail = #expect(throws: ImageError.self) {
            try coder.decode(
                Self.slowFile,
                options: Self.unboundedOptions(timeLimit: .milliseconds(20)).withThumbnail(PixelSize(300)))
        }
        #expect(Self.isTimeBudget(thumbnail), "\(String(describing: thumbnail))")
    }

    @Test func eachIncrementalStepHasItsOwnTimeLimit() throws {
        let options = Self.unboundedOptions(timeLimit: .milliseconds(20))
        let decoder = coder.makeIncrementalDecoder(options: options)
        // The header's tables (up to the first scan) are far within any limit; then the slow scans, all at
        // once, exceed it.
        try decoder.append(Self.slowFile.prefix(100))
        let append = #expect(throws: ImageError.self) { try decoder.append(Self.slowFile.dropFirst(100)) }
        #expect(Self.isTimeBudget(append), "\(String(describing: append))")
        // The decoder stays stopped, with the same reason.
        let finish = #expect(throws: ImageError.self) { _ = try decoder.finish() }
        #expect(Self.isTimeBudget(finish), "\(String(describing: finish))")
    }

    @Test func aCancelledTokenStopsTheDecode() throws {
        let cancellation = DecodeCancellation()
        cancellation.cancel()
        #expect(throws: ImageError.cancelled) {
            try coder.decode(Self.slowFile, options: Self.unboundedOptions(timeLimit: nil, cancellation: cancellation))
        }
    }

    @Test func cancellingFromAnotherThreadStopsADecodeInProgress() throws {
        let cancellation = DecodeCancellation()
        // From a thread of its own, not a task or a Dispatch queue: both are pools that other tests can keep
        // busy until after the decode ended; the kernel schedules a thread of its own within milliseconds.
        Thread {
            Thread.sleep(forTimeInterval: 0.05)
            cancellation.cancel()
        }.start()
        // Without the check the decode would finish (after seconds) and return an image.
        #expect(throws: ImageError.cancelled) {
            try coder.decode(Self.slowFile, options: Self.unboundedOptions(timeLimit: nil, cancellation: cancellation))
        }
    }

    @Test func aCancelledTaskStopsItsDecode() async throws {
        let options = Self.unboundedOptions(timeLimit: nil)
        let decode = Task.detached { () throws -> Image in
            withUnsafeCurrentTask { $0?.cancel() }
            return try JPEGCoder().decode(Self.slowFile, options: options)
        }
        await #expect(throws: ImageError.cancelled) { try await decode.value }
    }
}

extension DecodeOptions {
    func withThumbnail(_ size: PixelSize) -> DecodeOptions {
        var options = self
        options.thumbnailPixelSize = size
        return options
    }
}
