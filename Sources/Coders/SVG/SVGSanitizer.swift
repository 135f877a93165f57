import Foundation
import WebImageCore

#if canImport(FoundationXML)
import FoundationXML
#endif

/// Makes an SVG safe to answer as SVG to a browser: scripts and everything that runs code or reaches
/// out go, the drawing stays. An image proxy that passes SVG sources through (imgproxy does by default)
/// would otherwise serve a stranger's JavaScript from its own origin.
///
/// Removed: `<script>` and `<foreignObject>` elements with their content, every `on*` event attribute,
/// and `href`/`xlink:href` values that are not fragment references (`#id`) or `data:image/` URIs. The
/// document is re-serialised from the parse, so comments, processing instructions and the DOCTYPE (with
/// any entity declarations) are dropped too; external entities are never resolved.
public enum SVGSanitizer {
    /// The sanitised document; `.badImageData` when `data` is not well-formed XML with an `<svg>` root.
    public static func sanitized(_ data: Data) throws(ImageError) -> Data {
        let writer = SanitizingWriter()
        let parser = XMLParser(data: data)
        parser.shouldProcessNamespaces = false
        parser.shouldResolveExternalEntities = false
        parser.delegate = writer
        guard parser.parse(), writer.sawRoot, writer.depth == 0 else {
            let reason = parser.parserError.map { "\($0.localizedDescription)" } ?? "no <svg> root element"
            throw .badImageData(reason: "SVG: \(reason)")
        }
        return Data(writer.output.utf8)
    }

    /// Elements dropped with everything inside them.
    static let droppedElements: Set<String> = ["script", "foreignobject"]

    /// Whether an attribute survives.
    static func keeps(attribute name: String, value: String) -> Bool {
        let lowered = name.lowercased()
        if lowered.hasPrefix("on") { return false }
        if lowered == "href" || lowered.hasSuffix(":href") {
            let target = value.trimmingCharacters(in: .whitespacesAndNewlines).lowercased()
            return target.hasPrefix("#") || target.hasPrefix("data:image/")
        }
        return true
    }
}

/// Writes the parsed document back without what ``SVGSanitizer`` removes. One parse, one thread.
private final class SanitizingWriter: NSObject, XMLParserDelegate {
    var output = ""
    var sawRoot = false
    /// Elements open now: 0 once the root has closed (a truncated document ends above 0).
    private(set) var depth = 0
    /// Depth inside a dropped element (0: not inside one).
    private var droppedDepth = 0
    /// Whether the last start tag is still open (`<g ...` written without its `>`), so an empty element
    /// can close as `/>`.
    private var tagOpen = false

    func parser(
        _ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?,
        attributes: [String: String] = [:]
    ) {
        if !sawRoot {
            guard name.lowercased().hasSuffix("svg") else { parser.abortParsing(); return }
            sawRoot = true
        }
        depth += 1
        if droppedDepth > 0 || SVGSanitizer.droppedElements.contains(name.lowercased()) {
            droppedDepth += 1
            return
        }
        closeOpenTag()
        output += "<" + name
        for (key, value) in attributes.sorted(by: { $0.key < $1.key })
        where SVGSanitizer.keeps(attribute: key, value: value) {
            output += " \(key)=\"\(Self.escaped(value, quotes: true))\""
        }
        tagOpen = true
    }

    func parser(_ parser: XMLParser, didEndElement name: String, namespaceURI: String?, qualifiedName: String?) {
        depth -= 1
        if droppedDepth > 0 {
            droppedDepth -= 1
            return
        }
        if tagOpen {
            output += "/>"
            tagOpen = false
        } else {
            output += "</\(name)>"
        }
    }

    func parser(_ parser: XMLParser, foundCharacters string: String) {
        guard droppedDepth == 0 else { return }
        closeOpenTag()
        output += Self.escaped(string, quotes: false)
    }

    func parser(_ parser: XMLParser, foundCDATA CDATABlock: Data) {
        guard droppedDepth == 0 else { return }
        closeOpenTag()
        output += Self.escaped(String(decoding: CDATABlock, as: UTF8.self), quotes: false)
    }

    private func closeOpenTag() {
        if tagOpen {
            output += ">"
            tagOpen = false
        }
    }

    private static func escaped(_ text: String, quotes: Bool) -> String {
        var result = text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;")
        if quotes { result = result.replacingOccurrences(of: "\"", with: "&quot;") }
        return result
    }
}
