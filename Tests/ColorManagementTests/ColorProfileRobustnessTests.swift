import CLCMS2
import Foundation
import Testing
import WebImageCore
import WebImageJPEGCoder
import WebImageWebPCoder

@testable import WebImageColorManagement

/// Bad profiles never crash and never change pixels; transforms are cached, bounded and shared by threads;
/// animations are converted frame by frame when asked for.
@Suite(.serialized) struct ColorProfileRobustnessTests {
    let converter = LittleCMSConverter()
    let pixels = ColorProfileSeamTests.photo

    static func hostileProfiles() throws -> [(String, Data)] {
        let p3 = try ColorFixtures.displayP3
        var generator = SystemRandomNumberGenerator()
        var garbage = Data((0..<600).map { _ in UInt8.random(in: 0...255, using: &generator) })
        garbage.replaceSubrange(36..<40, with: Array("acsp".utf8))  // looks like a profile to a sniffer
        var badTagTable = p3
        badTagTable.replaceSubrange(128..<132, with: [0x00, 0xFF, 0xFF, 0xFF])  // 16 M tags
        return [
            ("empty", Data()),
            ("header only, cut at 100 bytes", p3.prefix(100)),
            ("truncated to 300 bytes", p3.prefix(300)),
            ("random bytes with the acsp signature", garbage),
            ("tag count of 16 M", badTagTable),
            ("over the 8 MB limit", p3 + Data(count: ColorTransform.maxProfileByteCount)),
            ("RGB profile on gray pixels", try ColorFixtures.displayP3),
            ("CMYK profile on RGB pixels", try ColorFixtures.profile("cmyk-test.icc")),
        ]
    }

    @Test func malformedOrMismatchedProfilesKeepThePixels() throws {
        for (name, profile) in try Self.hostileProfiles() {
            let subject = name.hasPrefix("RGB profile on gray") ? pixels.converted(to: .gray8) : pixels
            let image = Image(pixels: subject, metadata: ImageMetadata(iccProfile: profile))
            #expect(throws: ImageError.self, "\(name)") { try converter.convertedToSRGB(image) }
            let kept = ColorConversion.sRGB(converter).apply(to: image)
            #expect(kept.pixels == subject, "\(name): pixels changed")
            #expect(kept.metadata.iccProfile == profile, "\(name): unconverted pixels keep their profile")
        }
    }

    /// Damage lcms reads past (as browsers do): a missing last byte, a header size that lies. No crash; the
    /// result is the intact profile's.
    @Test func damageLittleCMSToleratesConvertsLikeTheIntactProfile() throws {
        let p3 = try ColorFixtures.displayP3
        var lyingSize = p3
        lyingSize.replaceSubrange(0..<4, with: [0x7F, 0xFF, 0xFF, 0xFF])  // header claims 2 GB
        let intact = try converter.convertedToSRGB(Image(pixels: pixels, metadata: ImageMetadata(iccProfile: p3)))
            .pixels
        for (name, profile) in [("truncated by one byte", p3.dropLast()), ("size field of 2 GB", lyingSize)] {
            let converted = ColorConversion.sRGB(converter).apply(
                to: Image(pixels: pixels, metadata: ImageMetadata(iccProfile: profile)))
            #expect(converted.pixels == intact, "\(name): differs from the intact profile's result")
        }
    }

    /// A CMYK JPEG whose profile lcms cannot use decodes with the naive conversion, as without a converter.
    @Test func cmykJPEGsWithABadProfileFallBackToTheNaiveConversion() throws {
        var naiveOptions = DecodeOptions()
        naiveOptions.colorConversion = .off
        var managedOptions = DecodeOptions()
        managedOptions.colorConversion = .sRGB(converter)
        for (name, profile) in try Self.hostileProfiles()
        where !profile.isEmpty && profile.count <= 60_000
            && !name.hasPrefix("CMYK")
        {
            let jpeg = ColorFixtures.replacingICCProfile(in: try ColorFixtures.cmykJPEG, with: profile)
            let naive = try JPEGCoder().decode(jpeg, options: naiveOptions)
            let managed = try JPEGCoder().decode(jpeg, options: managedOptions)
            #expect(naive.metadata.iccProfile == profile, "\(name)")
            #expect(managed.pixels == naive.pixels, "\(name): pixels differ from the naive conversion")
            // A profile of another colour space is dropped, so nothing applies it to the naive RGB later.
            #expect(
                managed.metadata.iccProfile
                    == (ImageMetadata(iccProfile: profile).iccColorSpace == "CMYK" ? profile : nil),
                "\(name)")
        }
        // A broken CMYK profile (header intact, tags cut) is kept, and nothing converts the RGB with it.
        let brokenCMYK = try ColorFixtures.profile("cmyk-test.icc").prefix(400)
        let jpeg = ColorFixtures.replacingICCProfile(in: try ColorFixtures.cmykJPEG, with: brokenCMYK)
        let coders = ImageCodersManager(coders: [JPEGCoder()])
        coders.defaultColorConversion = .sRGB(converter)
        let managed = try coders.decode(jpeg, options: DecodeOptions())
        #expect(managed.metadata.iccProfile == brokenCMYK)
        #expect(managed.pixels == (try JPEGCoder().decode(jpeg, options: naiveOptions)).pixels)
    }

    @Test func cmykConversionRejectsBadParameters() throws {
        let profile = try ColorFixtures.profile("cmyk-test.icc")
        #expect(throws: ImageError.invalidParameter(name: "samples", reason: "3 bytes for 2x2 CMYK pixels")) {
            try converter.convertCMYKToSRGB(invertedSamples: [1, 2, 3], width: 2, height: 2, profile: profile)
        }
        #expect(throws: ImageError.self) {
            try converter.convertCMYKToSRGB(invertedSamples: [], width: -1, height: 2, profile: profile)
        }
        #expect(throws: ImageError.self) {
            try converter.convertCMYKToSRGB(invertedSamples: [], width: .max, height: 2, profile: profile)
        }
        #expect(throws: ImageError.self) {
            try converter.convertCMYKToSRGB(invertedSamples: [], width: 1 << 20, height: 1 << 42, profile: profile)
        }
        #expect(throws: ImageError.self, "an RGB profile is not a CMYK one") {
            try converter.convertCMYKToSRGB(
                invertedSamples: [0, 0, 0, 0], width: 1, height: 1, profile: try ColorFixtures.displayP3)
        }
    }

    @Test func transformsAreCachedAndTheCacheIsBounded() throws {
        // A cache of the test's own: the shared one is filled by every colour test running at once.
        let cache = ColorTransformCache()
        func key(_ profile: Data) -> ColorTransformCache.Key {
            .init(profile: profile, format: ColorPixelFormat(.rgb8), intent: .perceptual, blackPointCompensation: true)
        }
        let p3 = try ColorFixtures.displayP3
        guard case .transform(let first) = cache.entry(for: key(p3)),
            case .transform(let second) = cache.entry(for: key(p3))
        else {
            Issue.record("Display P3 should need a transform")
            return
        }
        #expect(first === second)
        #expect(cache.count == 1)
        for index in 0..<(ColorTransformCache.capacity + 8) {
            _ = cache.entry(for: key(ColorFixtures.gammaRGB(1.5 + Double(index) / 10)))
        }
        #expect(cache.count == ColorTransformCache.capacity)
        // The oldest went first: Display P3 is made again, a new transform.
        guard case .transform(let remade) = cache.entry(for: key(p3)) else {
            Issue.record("Display P3 should need a transform")
            return
        }
        #expect(remade !== first)
    }

    @Test func oneTransformServesManyThreadsAtOnce() throws {
        let p3 = try ColorFixtures.displayP3
        let big = PixelBuffer(
            width: 256, height: 64, layout: .rgb8,
            bytes: (0..<(256 * 64 * 3)).map { UInt8(truncatingIfNeeded: $0 &* 7) })
        let image = Image(pixels: big, metadata: ImageMetadata(iccProfile: p3))
        let expected = try converter.convertedToSRGB(image).pixels
        let mismatches = Locked(0)
        DispatchQueue.concurrentPerform(iterations: 16) { _ in
            let ok = (try? converter.convertedToSRGB(image).pixels) == expected
            if !ok { mismatches.withLock { $0 += 1 } }
        }
        #expect(mismatches.withLock { $0 } == 0)
    }

    /// A P3 WebP animation: the poster is converted at once, other frames only when asked for.
    @Test func animationsAreConvertedFrameByFrameWhenAsked() throws {
        let references = try ColorFixtures.references(kind: "rgb", profile: "display-p3.icc")
        let frames = (0..<4).map { index in
            ImageFrame(
                pixels: ColorFixtures.rgbRow(references.map(\.input).shuffled(seed: index)).converted(to: .rgba8),
                duration: .milliseconds(100 * (index + 1)))
        }
        let animation = Image(frames: frames, loopCount: 3)
        let data = try WebPCoder().encode(
            animation, as: .webp,
            options: EncodeOptions(lossless: true, iccProfile: try ColorFixtures.displayP3))
        var options = DecodeOptions()
        options.colorConversion = .sRGB(converter)
        let coders = ImageCodersManager(coders: [WebPCoder()])
        let decoded = try coders.decode(data, options: options)
        #expect(decoded.isAnimated && decoded.frameCount == 4 && decoded.loopCount == 3)
        #expect(decoded.frameDurations.map { ($0 / .milliseconds(100)).rounded() } == [1, 2, 3, 4])
        #expect(decoded.metadata.iccProfile == nil)
        let store = try #require(decoded.animation)
        #expect(store.cachedFrameCount == 1, "only the poster is converted up front")
        let expectedByInput = Dictionary(references.map { ($0.input, $0.expected) }, uniquingKeysWith: { a, _ in a })
        for index in 0..<4 {
            let frame = try decoded.frame(at: index).pixels
            let inputs = references.map(\.input).shuffled(seed: index)
            for (x, input) in inputs.enumerated() {
                let p = frame.rgba(x: x, y: 0)
                #expect(
                    ColorFixtures.maxDifference([p.r, p.g, p.b], expectedByInput[input]!)
                        <= ColorReferenceTests.tolerance)
            }
        }
    }
}

extension Array {
    /// A fixed permutation per seed (rotation), so frames differ but are reproducible.
    func shuffled(seed: Int) -> [Element] {
        guard !isEmpty else { return self }
        let shift = seed % count
        return Array(self[shift...] + self[..<shift])
    }
}
