import Foundation
import Testing
import WebImageCore
import WebImageSVGCoder

/// What SVGSanitizer removes and what it keeps.
@Suite("SVGSanitizer")
struct SVGSanitizerTests {
    static let hostile = Data(
        """
        <?xml version="1.0"?>
        <!DOCTYPE svg [<!ENTITY x "boom">]>
        <svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" width="20" height="10" onload="alert(1)">
          <script>alert(document.cookie)</script>
          <script type="text/ecmascript"><![CDATA[ fetch('//evil') ]]></script>
          <defs><rect id="r" width="5" height="5" fill="#f00"/></defs>
          <a href="javascript:alert(2)"><rect width="20" height="10" fill="#00f" onclick="alert(3)"/></a>
          <use xlink:href="#r"/>
          <image href="https://evil.example/track.png" width="1" height="1"/>
          <image href="data:image/png;base64,iVBORw0KGgo=" width="1" height="1"/>
          <foreignObject width="10" height="10"><body xmlns="http://www.w3.org/1999/xhtml"><iframe src="https://evil.example"/></body></foreignObject>
          <text x="1" y="9">a &lt; b &amp; c</text>
        </svg>
        """.utf8)

    @Test func scriptsEventsAndOutsideLinksGoTheDrawingStays() throws {
        let clean = String(decoding: try SVGSanitizer.sanitized(Self.hostile), as: UTF8.self)
        for gone in [
            "<script", "alert", "fetch(", "onload", "onclick", "javascript:", "evil.example", "foreignObject", "iframe",
            "ENTITY",
        ] {
            #expect(!clean.contains(gone), "\(gone) survived: \(clean)")
        }
        for kept in [
            ##"xlink:href="#r""##, "data:image/png;base64", ##"fill="#00f""##, "a &lt; b &amp; c", "<defs>",
            "width=\"20\"",
        ] {
            #expect(clean.contains(kept), "\(kept) was lost: \(clean)")
        }
        // Still a drawing librsvg reads, the same size.
        let image = try SVGCoder().decode(Data(clean.utf8), options: DecodeOptions())
        #expect(image.width == 20 && image.height == 10)
    }

    @Test func notAnSVGIsATypedError() {
        for text in ["<html><script>alert(1)</script></html>", "<svg", "plain text"] {
            #expect(throws: ImageError.self, "\(text)") { try SVGSanitizer.sanitized(Data(text.utf8)) }
        }
    }
}
