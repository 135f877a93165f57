import Foundation
import Testing
import WebImageCore
import WebImageGIFCoder
import WebImageTestSupport
import WebImageTesting

/// The contract every coder keeps (WebImageTesting's `CoderContract`), run on this plugin as any plugin
/// author runs it on theirs.
@Suite("GIFCoder keeps the coder contract")
struct GIFCoderContractTests {
    @Test func theCoderContractHolds() throws {
        let coder = GIFCoder()
        let samples = try [PixelLayout.rgb8, .rgba8].map { layout in
            try coder.encode(Image(pixels: TestPictures.quadrants(width: 64, height: 48, layout: layout)),
                             as: .gif, options: EncodeOptions())
        }
        let violations = CoderContract(coder: coder, samples: samples).violations()
        #expect(violations.isEmpty, "\(violations)")
    }
}
