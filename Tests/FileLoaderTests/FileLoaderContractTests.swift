import Foundation
import Testing
import WebImageCore
import WebImageFileLoader
import WebImageTestSupport
import WebImageTesting

/// The contract every loader keeps (WebImageTesting's `LoaderContract`), run on the file loader.
@Suite("FileLoader keeps the loader contract")
struct FileLoaderContractTests {
    @Test func theLoaderContractHolds() async throws {
        let directory = try TemporaryDirectory(prefix: "file-loader-contract")
        let file = try directory.write(Data(repeating: 0xAB, count: 300_000), to: "image.bin")
        let loader = FileLoader(allowedRoots: [directory.url])
        let violations = await LoaderContract(
            loader: loader, url: file,
            missingURL: directory.file("missing.bin")
        ).violations()
        #expect(violations.isEmpty, "\(violations)")
    }
}
