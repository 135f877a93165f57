import Foundation
import LoopbackHTTPServer
import Testing
import WebImageCore
import WebImageTesting

@testable import WebImageHTTPLoader

/// The contract every loader keeps (WebImageTesting's `LoaderContract`), run on the HTTP loader against a
/// real server on loopback.
@Suite("HTTPLoader keeps the loader contract")
struct HTTPLoaderContractTests {
    @Test func theLoaderContractHolds() async throws {
        let server = try LoopbackHTTPServer()
        let body = [UInt8](repeating: 0x5C, count: 200_000)
        server.route("/image.bin") { _, connection in
            try connection.respond(headers: [("Content-Type", "image/png")], body: body)
        }
        server.route("/missing.bin") { _, connection in try connection.respond(status: 404) }
        let loader = makeLoader()
        let violations = await LoaderContract(
            loader: loader, url: server.url("/image.bin"),
            missingURL: server.url("/missing.bin")
        ).violations()
        #expect(violations.isEmpty, "\(violations)")
    }
}
