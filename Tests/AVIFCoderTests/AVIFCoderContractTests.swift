import Foundation
import Testing
import WebImageAVIFCoder
import WebImageCore
import WebImageTestSupport
import WebImageTesting

/// The contract every coder keeps (WebImageTesting's `CoderContract`), run on this plugin as any plugin
/// author runs it on theirs.
@Suite("AVIFCoder keeps the coder contract")
struct AVIFCoderContractTests {
    @Test func theCoderContractHolds() throws {
        let coder = AVIFCoder()
        let samples = try ContractSamples.quadrants(encodedBy: coder, as: .avif)
        var contract = CoderContract(coder: coder, samples: samples)
        contract.corruptedCopies = 16
        let violations = contract.violations()
        #expect(violations.isEmpty, "\(violations)")
    }
}
