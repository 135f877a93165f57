import Foundation
import Testing
import WebImage

/// An app's own type with the same name as ours, as a UI toolkit or a model layer has.
private struct Image { let name: String }

@Suite("Umbrella namespace")
struct NamespaceTests {
    @Test func ourTypesAreReachableThroughTheWebImageNamespaceBesideTheAppsOwn() throws {
        let own = Image(name: "the app's")
        let ours: WebImage.Image = WebImage.Image(
            pixels: WebImage.PixelBuffer(
                width: 2, height: 1, layout: .gray8,
                bytes: [0, 255]))
        #expect(own.name == "the app's")
        #expect(ours.width == 2)
        let error: WebImage.ImageError = .pluginFailure(message: "x", isRetryable: true)
        #expect(error.description == "x")
    }
}
