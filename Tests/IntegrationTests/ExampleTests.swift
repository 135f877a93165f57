import Foundation
import Testing
import WebImageTestSupport

/// Each example is run as a program and its output checked.
@Suite("Examples")
struct ExampleTests {
    @Test func customCoderLoadsAPPMByURL() throws {
        let run = try BuiltExecutable.run("CustomCoder")
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.contains("format ppm, 64x48, from file"))
        #expect(run.stdout.contains("pixel (10, 20) = rgb(40, 100, 128)"))
        #expect(run.stdout.contains("thumbnail: 16x12"))
        #expect(run.stdout.contains("second load came from: memory"))
    }

    @Test func customLoaderUsesItsSchemeModifierAndKeyFilter() throws {
        let run = try BuiltExecutable.run("CustomLoader")
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.contains("rgb(255, 0, 0) from loader"))
        #expect(run.stdout.contains("the loader received Authorization: Bearer example-token"))
        #expect(run.stdout.contains("cache key of asset://logo?v=1: asset://logo"))
        #expect(run.stdout.contains("loaded asset://logo?v=2 from: memory (requests sent: 1)"))
        #expect(run.stdout.contains("refused request: request refused"))
    }

    @Test func terminalGalleryDrawsPlaceholderProgressImagesAndAnimation() throws {
        let run = try BuiltExecutable.run("TerminalGallery", ["1"])
        #expect(run.status == 0, "\(run.stderr)")
        for name in ["badge-alpha.png", "baseline.jpg", "spinner.gif"] {
            #expect(run.stdout.contains("\(name): placeholder"))
            #expect(run.stdout.contains("\(name): loading 100%"))
            #expect(run.stdout.contains("\(name): loaded"))
            #expect(run.stdout.contains("URL remembered: \(name)"))
        }
        #expect(run.stdout.contains("spinner.gif: played 1 loops of 12 frames"))
        #expect(run.stdout.contains("\u{1B}[38;2;") && run.stdout.contains("▀"))
    }
}
