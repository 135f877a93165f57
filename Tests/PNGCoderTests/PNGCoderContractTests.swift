import Foundation
import Testing
import WebImageCore
import WebImagePNGCoder
import WebImageTestSupport
import WebImageTesting

/// The contract every coder keeps (WebImageTesting's `CoderContract`), run on this plugin as any plugin
/// author runs it on theirs.
@Suite("PNGCoder keeps the coder contract")
struct PNGCoderContractTests {
    @Test func theCoderContractHolds() throws {
        let coder = PNGCoder()
        let samples = try ContractSamples.quadrants(encodedBy: coder, as: .png)
        let violations = CoderContract(coder: coder, samples: samples).violations()
        #expect(violations.isEmpty, "\(violations)")
    }
}
