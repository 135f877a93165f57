import Foundation
import Testing
import WebImageCore
import WebImageTIFFCoder
import WebImageTestSupport
import WebImageTesting

/// The contract every coder keeps (WebImageTesting's `CoderContract`), run on this plugin as any plugin
/// author runs it on theirs.
@Suite("TIFFCoder keeps the coder contract")
struct TIFFCoderContractTests {
    @Test func theCoderContractHolds() throws {
        let coder = TIFFCoder()
        let samples = try ContractSamples.quadrants(encodedBy: coder, as: .tiff)
        let violations = CoderContract(coder: coder, samples: samples).violations()
        #expect(violations.isEmpty, "\(violations)")
    }
}
