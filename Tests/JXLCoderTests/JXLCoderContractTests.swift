import Foundation
import Testing
import WebImageCore
import WebImageJXLCoder
import WebImageTestSupport
import WebImageTesting

/// The contract every coder keeps (WebImageTesting's `CoderContract`), run on this plugin as any plugin
/// author runs it on theirs.
@Suite("JXLCoder keeps the coder contract")
struct JXLCoderContractTests {
    @Test func theCoderContractHolds() throws {
        let coder = JXLCoder()
        let samples = try ContractSamples.quadrants(encodedBy: coder, as: .jpegXL)
        var contract = CoderContract(coder: coder, samples: samples)
        contract.corruptedCopies = 16
        let violations = contract.violations()
        #expect(violations.isEmpty, "\(violations)")
    }
}
