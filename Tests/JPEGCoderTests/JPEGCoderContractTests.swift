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
        let samples = try ContractSamples.quadrants(encodedBy: coder, as: .jpeg)
        let violations = CoderContract(coder: coder, samples: samples).violations()
        #expect(violations.isEmpty, "\(violations)")
    }
}
