import Foundation
import Testing
import WebImageCore
import WebImagePNGCoder
import WebImageSVGCoder
import WebImageTestSupport
import WebImageTesting

/// Documents drawn by SVGCoder and by rsvg-convert (librsvg's own command, PNG read by our PNG coder).
@Suite("SVGCoder")
struct SVGCoderTests {
    /// Shapes, a gradient, transparency and text-free paths: what librsvg draws the same way every time.
    static let drawing = Data(
        """
        <?xml version="1.0" encoding="UTF-8"?>
        <svg xmlns="http://www.w3.org/2000/svg" width="120" height="80" viewBox="0 0 120 80">
          <defs><linearGradient id="g"><stop offset="0" stop-color="#f00"/><stop offset="1" stop-color="#00f" stop-opacity="0.5"/></linearGradient></defs>
          <rect x="4" y="4" width="70" height="40" fill="url(#g)"/>
          <circle cx="80" cy="50" r="25" fill="#0a0" fill-opacity="0.6" stroke="#000" stroke-width="3"/>
          <path d="M10 70 L60 55 L110 75 Z" fill="#fc0"/>
        </svg>
        """.utf8)

    @Test func drawsAsRsvgConvertDoes() throws {
        let image = try SVGCoder().decode(Self.drawing, options: DecodeOptions())
        #expect(image.width == 120 && image.height == 80)
        #expect(image.format == .svg)
        let reference = try RsvgConvert().render(Self.drawing)
        expectClose(image.pixels, reference)
    }

    @Test func aThumbnailIsDrawnAtItsSizeNotScaledDown() throws {
        var options = DecodeOptions()
        options.thumbnailPixelSize = PixelSize(width: 60, height: 60)
        let image = try SVGCoder().decode(Self.drawing, options: options)
        #expect(image.width == 60 && image.height == 40)
        expectClose(image.pixels, try RsvgConvert().render(Self.drawing, width: 60, height: 40))
    }

    @Test func sizesFollowBrowsers() throws {
        let viewBoxOnly = Data(
            #"<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 40 10"><rect width="40" height="10"/></svg>"#.utf8)
        let image = try SVGCoder().decode(viewBoxOnly, options: DecodeOptions())
        #expect(image.width == 40 && image.height == 10)
        let sizeless = Data(
            #"<svg xmlns="http://www.w3.org/2000/svg" width="100%"><rect width="4" height="4"/></svg>"#.utf8)
        let fallback = try SVGCoder().decode(sizeless, options: DecodeOptions())
        #expect(fallback.width == 300 && fallback.height == 150)
        let inches = Data(#"<svg xmlns="http://www.w3.org/2000/svg" width="1in" height="0.5in"/>"#.utf8)
        let physical = try SVGCoder().decode(inches, options: DecodeOptions())
        #expect(physical.width == 96 && physical.height == 48)
    }

    @Test func hostileDocumentsEndInTypedErrors() {
        let huge = Data(#"<svg xmlns="http://www.w3.org/2000/svg" width="200000" height="200000"/>"#.utf8)
        #expect(throws: ImageError.self) { try SVGCoder().decode(huge, options: DecodeOptions()) }
        do {
            _ = try SVGCoder().decode(huge, options: DecodeOptions())
        } catch {
            guard case .imageTooLarge = error else { Issue.record("expected imageTooLarge, got \(error)"); return }
        }
        for broken in ["<svg", "not xml at all", "<svg xmlns=\"http://www.w3.org/2000/svg\"><rect></svg>", ""] {
            #expect(throws: ImageError.self, "\(broken)") {
                try SVGCoder().decode(Data(broken.utf8), options: DecodeOptions())
            }
        }
    }

    @Test func externalResourcesAreNeverLoaded() throws {
        let directory = try TemporaryDirectory(prefix: "svg-external")
        let red = try PNGCoder().encode(
            Image(
                pixels: PixelBuffer(
                    width: 2, height: 2, layout: .rgb8,
                    bytes: [UInt8](repeating: 0, count: 12).enumerated().map { $0.offset % 3 == 0 ? 255 : 0 })),
            as: .png, options: EncodeOptions())
        let file = try directory.write(red, to: "red.png")
        let referencing = Data(
            """
            <svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" width="10" height="10">
              <image width="10" height="10" xlink:href="\(file.absoluteString)"/>
            </svg>
            """.utf8)
        let image = try SVGCoder().decode(referencing, options: DecodeOptions())
        #expect(image.pixels.bytes.allSatisfy { $0 == 0 }, "the referenced file was drawn")
    }

    @Test func theCoderContractHolds() {
        var contract = CoderContract(coder: SVGCoder(), samples: [Self.drawing])
        contract.corruptedCopies = 16
        let violations = contract.violations()
        #expect(violations.isEmpty, "\(violations)")
    }

    /// librsvg and our conversion from premultiplied pixels round differently by at most one level.
    private func expectClose(
        _ ours: PixelBuffer, _ reference: PixelBuffer, sourceLocation: SourceLocation = #_sourceLocation
    ) {
        #expect(ours.width == reference.width && ours.height == reference.height, sourceLocation: sourceLocation)
        let a = ours.converted(to: .rgba8).bytes, b = reference.converted(to: .rgba8).bytes
        guard a.count == b.count else { Issue.record("sizes differ", sourceLocation: sourceLocation); return }
        var worst = 0
        for index in a.indices where b[index & ~3 | 3] != 0 {
            worst = max(worst, abs(Int(a[index]) - Int(b[index])))
        }
        #expect(worst <= 1, "largest difference \(worst)", sourceLocation: sourceLocation)
    }
}

/// rsvg-convert's PNG of a document, decoded by our PNG coder.
struct RsvgConvert {
    let directory: TemporaryDirectory

    init() throws { directory = try TemporaryDirectory(prefix: "rsvg-convert") }

    func render(_ svg: Data, width: Int? = nil, height: Int? = nil) throws -> PixelBuffer {
        let input = try directory.write(svg, to: "in-\(UUID().uuidString).svg").path
        let output = directory.file("out-\(UUID().uuidString).png").path
        var arguments = ["-f", "png", "-o", output]
        if let width { arguments += ["-w", String(width)] }
        if let height { arguments += ["-h", String(height)] }
        try ReferenceTool.run("rsvg-convert", arguments + [input])
        return try PNGCoder().decode(try Data(contentsOf: URL(fileURLWithPath: output)), options: DecodeOptions())
            .pixels
    }
}
