import Foundation
import WebImageCore
import WebImageJPEGCoder
import WebImageTestSupport

/// JPEG files made in code for the JPEG tests.
enum JPEGFixtures {
    /// A picture with detail at every frequency (a gradient plus deterministic noise), so AC coefficients
    /// and every progressive scan carry data.
    static func detailed(width: Int, height: Int, layout: PixelLayout = .rgb8) -> PixelBuffer {
        var pixels = TestPictures.gradient(width: width, height: height, layout: layout)
        var seed: UInt32 = 0x9E37_79B9
        for index in pixels.bytes.indices {
            seed = seed &* 1_664_525 &+ 1_013_904_223  // a linear congruential generator: same noise every run
            let noise = Int(seed >> 27) - 16
            pixels.bytes[index] = UInt8(clamping: Int(pixels.bytes[index]) + noise)
        }
        return pixels
    }

    static func encode(
        _ pixels: PixelBuffer, progressive: Bool, subsampling: EncodeOptions.ChromaSubsampling = .quarter,
        quality: Double = 0.9
    ) throws -> Data {
        try JPEGCoder().encode(
            Image(pixels: pixels), as: .jpeg,
            options: EncodeOptions(quality: quality, progressive: progressive, chromaSubsampling: subsampling))
    }

    /// Baseline and progressive files of each kind the tests feed in chunks.
    static func chunkedCases() throws -> [(name: String, data: Data)] {
        var cases: [(String, Data)] = []
        for progressive in [false, true] {
            let kind = progressive ? "progressive" : "baseline"
            cases.append(("\(kind) RGB 4:2:0", try encode(detailed(width: 200, height: 150), progressive: progressive)))
            cases.append(
                (
                    "\(kind) RGB 4:4:4",
                    try encode(detailed(width: 61, height: 37), progressive: progressive, subsampling: .none)
                ))
            cases.append(
                ("\(kind) gray", try encode(detailed(width: 90, height: 70, layout: .gray8), progressive: progressive)))
        }
        return cases
    }
}
