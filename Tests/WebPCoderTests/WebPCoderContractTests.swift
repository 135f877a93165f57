import Foundation
import Testing
import WebImageCore
import WebImageTestSupport
import WebImageTesting
import WebImageWebPCoder

/// The contract every coder keeps (WebImageTesting's `CoderContract`), run on this plugin as any plugin
/// author runs it on theirs.
@Suite("WebPCoder keeps the coder contract")
struct WebPCoderContractTests {
    @Test func theCoderContractHolds() throws {
        let coder = WebPCoder()
        let samples = try ContractSamples.quadrants(encodedBy: coder, as: .webp)
        let violations = CoderContract(coder: coder, samples: samples).violations()
        #expect(violations.isEmpty, "\(violations)")
    }
}
