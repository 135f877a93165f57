import Foundation
import Testing
import WebImage

/// The built-in coders come from an explicit call, not from reading `WebImage.shared` for its side effect.
@Suite("Built-in coders are registered by an explicit call")
struct BuiltInCodersRegistrationTests {
    @Test func registeringTwiceRegistersEveryBuiltInCoderOnce() {
        WebImage.registerBuiltInCoders()
        let count = ImageCodersManager.shared.coders.count
        WebImage.registerBuiltInCoders()
        #expect(ImageCodersManager.shared.coders.count == count)
        let names = Set(ImageCodersManager.shared.coders.map { String(describing: type(of: $0)) })
        for coder in [
            "AVIFCoder", "HEIFCoder", "JXLCoder", "GIFCoder", "WebPCoder", "PNGCoder", "APNGCoder",
            "JPEGCoder", "TIFFCoder", "BMPCoder", "ICOCoder",
        ] {
            #expect(names.contains(coder), "\(coder) is registered")
        }
        #expect(ImageCodersManager.shared.defaultColorConversion == .sRGB(LittleCMSConverter()))
    }
}
