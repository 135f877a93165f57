import Foundation
import Testing
import WebImageCore
import WebImageTestSupport

@testable import WebImageColorManagement

/// Profiles made to hurt: randomly damaged copies of real ones, and CLUTs that claim absurd sizes. None may
/// crash the process; each either converts or leaves the pixels as stored.
@Suite struct HostileProfileTests {
    let converter = LittleCMSConverter()
    let rgb = ColorProfileSeamTests.photo
    let cmyk = [UInt8](repeating: 100, count: 4 * 4 * 4)

    /// `profile` with `count` random bytes overwritten (seeded, so a failure can be replayed).
    static func damaged(_ profile: Data, seed: UInt64, count: Int) -> Data {
        var generator = SeededGenerator(seed: seed)
        var bytes = [UInt8](profile)
        for _ in 0..<count {
            bytes[Int(generator.next() % UInt64(bytes.count))] = UInt8(truncatingIfNeeded: generator.next())
        }
        return Data(bytes)
    }

    /// Mutations per profile: enough to hit the header, the tag table and tag data many times each.
    static let mutations = 150

    @Test func randomlyDamagedRGBProfilesNeverCrash() throws {
        let p3 = try ColorFixtures.displayP3
        var converted = 0
        for seed in 0..<UInt64(Self.mutations) {
            let profile = Self.damaged(p3, seed: seed, count: 1 + Int(seed % 8))
            let image = Image(pixels: rgb, metadata: ImageMetadata(iccProfile: profile))
            let result = ColorConversion.sRGB(converter).apply(to: image)
            if result.metadata.iccProfile == nil { converted += 1 } else { #expect(result.pixels == rgb) }
        }
        // Most single-byte damage lands in tag data lcms reads past; some must be refused.
        #expect(converted > 0 && converted < Self.mutations)
    }

    @Test func randomlyDamagedCMYKProfilesNeverCrash() throws {
        let profile = try ColorFixtures.profile("cmyk-test.icc")
        for seed in 0..<UInt64(Self.mutations / 3) {
            let damaged = Self.damaged(profile, seed: seed, count: 1 + Int(seed % 4))
            if let pixels = try? converter.convertCMYKToSRGB(
                invertedSamples: cmyk, width: 4, height: 4, profile: damaged)
            {
                #expect(pixels.layout == .rgb8 && pixels.width == 4)
            }
        }
    }

    /// The test CMYK profile's AToB0 CLUT (lut16Type: clutPoints at byte 10 of the tag) claiming a grid of
    /// `points` per channel: up to 255^4 x 3 entries, gigabytes, that the file does not hold.
    static func cmykProfile(claimingGridPoints points: UInt8) throws -> Data {
        var bytes = [UInt8](try ColorFixtures.profile("cmyk-test.icc"))
        let tagCount = Int(bytes[128]) << 24 | Int(bytes[129]) << 16 | Int(bytes[130]) << 8 | Int(bytes[131])
        for tag in 0..<tagCount {
            let entry = 132 + tag * 12
            guard String(decoding: bytes[entry..<entry + 4], as: UTF8.self) == "A2B0" else { continue }
            let offset =
                Int(bytes[entry + 4]) << 24 | Int(bytes[entry + 5]) << 16 | Int(bytes[entry + 6]) << 8
                | Int(bytes[entry + 7])
            #expect(String(decoding: bytes[offset..<offset + 4], as: UTF8.self) == "mft2")
            bytes[offset + 10] = points
            return Data(bytes)
        }
        Issue.record("no A2B0 tag")
        return Data()
    }

    @Test(arguments: [UInt8(40), 100, 255])
    func absurdCLUTSizesAreRefused(points: UInt8) throws {
        let profile = try Self.cmykProfile(claimingGridPoints: points)
        #expect(throws: ImageError.self) {
            try converter.convertCMYKToSRGB(invertedSamples: cmyk, width: 4, height: 4, profile: profile)
        }
    }
}
