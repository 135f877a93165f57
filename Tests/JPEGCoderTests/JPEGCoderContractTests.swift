import Foundation
import Testing
import WebImageCore
import WebImageJPEGCoder
import WebImageTestSupport
import WebImageTesting

/// The contract every coder keeps (WebImageTesting's `CoderContract`), run on this plugin as any plugin
/// author runs it on theirs.
@Suite("JPEGCoder keeps the coder contract")
struct JPEGCoderContractTests {
    @Test func theCoderContractHolds() throws {
        let coder = JPEGCoder()
        let samples = try [PixelLayout.rgb8, .rgba8].map { layout in
            try coder.encode(Image(pixels: TestPictures.quadrants(width: 64, height: 48, layout: layout)),
                             as: .jpeg, options: EncodeOptions())
        }
        let violations = CoderContract(coder: coder, samples: samples).violations()
        #expect(violations.isEmpty, "\(violations)")
    }
}
