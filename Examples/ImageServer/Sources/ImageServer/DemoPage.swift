import Foundation
import WebImage

/// `/demo`: an HTML page of signed processing URLs over the sample sources, each `<img>` carrying the
/// size it must have (`data-width`/`data-height`), which `scripts/checks/browser-check` compares with what the
/// browser decoded.
struct DemoPage {
    let demo: DemoConfiguration
    let signer: URLSigner

    /// One image on the page.
    struct Entry {
        var caption: String
        var path: String
        var width: Int
        var height: Int
    }

    /// The box the resize entries fit into, small enough for many on one screen.
    static let fitBox = 160
    /// The square the fill entries crop to.
    static let fillSide = 120

    func entries() -> [Entry] {
        var entries: [Entry] = []
        for sample in demo.samples {
            let source = demo.sourceBaseURL.appendingPathComponent(sample.fileName).absoluteString
            let encoded = Base64URL.encode(Array(source.utf8))
            func add(_ caption: String, options: String, plainExtension: String?, width: Int, height: Int) {
                let tail = plainExtension.map { "plain/" + Self.percentEncoded(source) + "@" + $0 } ?? encoded
                let unsigned = "/" + (options.isEmpty ? "" : options + "/") + tail
                entries.append(
                    Entry(
                        caption: "\(sample.fileName): \(caption)", path: signer.signedPath(unsigned),
                        width: width, height: height))
            }
            add("as WebP", options: "", plainExtension: "webp", width: sample.width, height: sample.height)
            add("as PNG", options: "", plainExtension: "png", width: sample.width, height: sample.height)
            add("negotiated", options: "", plainExtension: nil, width: sample.width, height: sample.height)
            let fit = Self.fitted(width: sample.width, height: sample.height, box: Self.fitBox)
            add(
                "fit \(Self.fitBox)", options: "rs:fit:\(Self.fitBox):\(Self.fitBox)", plainExtension: nil,
                width: fit.width, height: fit.height)
            let fill = Self.filled(width: sample.width, height: sample.height, side: Self.fillSide)
            add(
                "fill \(Self.fillSide) JPEG q70", options: "rs:fill:\(Self.fillSide):\(Self.fillSide)/g:ce/q:70/f:jpg",
                plainExtension: nil, width: fill.width, height: fill.height)
            add(
                "fit \(Self.fitBox), blur", options: "rs:fit:\(Self.fitBox):\(Self.fitBox)/bl:2",
                plainExtension: "webp",
                width: fit.width, height: fit.height)
        }
        return entries
    }

    /// The size fitting inside a `box` square, never enlarged (imgproxy's `fit` without `el`).
    static func fitted(width: Int, height: Int, box: Int) -> (width: Int, height: Int) {
        let scale = min(1, min(Double(box) / Double(width), Double(box) / Double(height)))
        return (max(1, Int((Double(width) * scale).rounded())), max(1, Int((Double(height) * scale).rounded())))
    }

    /// The size `fill` into a `side` square gives, never enlarged: scaled to cover the square (at most
    /// 1:1), then cropped to it.
    static func filled(width: Int, height: Int, side: Int) -> (width: Int, height: Int) {
        let scale = min(1, max(Double(side) / Double(width), Double(side) / Double(height)))
        let scaled = (Int((Double(width) * scale).rounded()), Int((Double(height) * scale).rounded()))
        return (max(1, min(side, scaled.0)), max(1, min(side, scaled.1)))
    }

    static func percentEncoded(_ text: String) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        return text.addingPercentEncoding(withAllowedCharacters: allowed) ?? text
    }

    func html() -> String {
        let figures = entries().map { entry in
            """
            <figure><img src="\(Self.escaped(entry.path))" data-width="\(entry.width)" data-height="\(entry.height)" \
            alt="\(Self.escaped(entry.caption))"><figcaption>\(Self.escaped(entry.caption)) \
            (\(entry.width)×\(entry.height))</figcaption></figure>
            """
        }.joined(separator: "\n")
        return """
            <!doctype html>
            <html><head><meta charset="utf-8"><title>webimage-server demo</title>
            <style>body{font:14px sans-serif;background:#eee}figure{display:inline-block;margin:8px;padding:8px;\
            background:#fff;vertical-align:top}figcaption{max-width:200px}img{max-width:400px;background:\
            repeating-conic-gradient(#ccc 0 25%,#fff 0 50%) 0 0/16px 16px}</style></head>
            <body><h1>webimage-server demo</h1>
            <p>Signed imgproxy URLs over the sample images: conversions, fits, crops, blur, animations.</p>
            <p id="check">checking…</p>
            \(figures)
            <script>
            // After every image has loaded or failed: compare each with the size it must have.
            window.addEventListener("load", () => {
              const images = [...document.querySelectorAll("img[data-width]")];
              const bad = images.filter(i => !i.complete || i.naturalWidth != i.dataset.width || i.naturalHeight != i.dataset.height);
              const check = document.getElementById("check");
              check.textContent = `images: ${images.length - bad.length} of ${images.length} loaded with the expected size` +
                bad.map(i => `; wrong: ${i.alt} (${i.naturalWidth}x${i.naturalHeight})`).join("");
              check.dataset.ok = bad.length == 0 && images.length > 0 ? "yes" : "no";
            });
            </script>
            </body></html>
            """
    }

    static func escaped(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "\"", with: "&quot;")
            .replacingOccurrences(of: "<", with: "&lt;").replacingOccurrences(of: ">", with: "&gt;")
    }
}
