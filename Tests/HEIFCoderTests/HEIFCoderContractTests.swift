import Foundation
import Testing
import WebImageCore
import WebImageHEIFCoder
import WebImageTestSupport
import WebImageTesting

/// The contract every coder keeps (WebImageTesting's `CoderContract`), run on this plugin as any plugin
/// author runs it on theirs.
@Suite("HEIFCoder keeps the coder contract")
struct HEIFCoderContractTests {
    @Test func theCoderContractHolds() throws {
        let coder = HEIFCoder()
        let samples = try ContractSamples.quadrants(encodedBy: coder, as: .heic)
        var contract = CoderContract(coder: coder, samples: samples)
        contract.corruptedCopies = 16
        let violations = contract.violations()
        #expect(violations.isEmpty, "\(violations)")
    }
}
