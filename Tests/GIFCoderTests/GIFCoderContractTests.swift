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
        let samples = try ContractSamples.quadrants(encodedBy: coder, as: .gif)
        let violations = CoderContract(coder: coder, samples: samples).violations()
        #expect(violations.isEmpty, "\(violations)")
    }
}
