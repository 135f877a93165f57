import Foundation

/// The processing options that shape the HTTP answer rather than the pixels, as imgproxy reads them:
/// `filename`/`fn`, `return_attachment`/`att`, `cachebuster`/`cb`, `expires`/`exp`. They are taken out
/// of the option segments before the rest go to the pixel parser.
struct ResponseOptions: Sendable, Equatable {
    /// `Content-Disposition`'s file name, without extension (`fn:NAME[:ENCODED]`, base64url when ENCODED).
    var filename: String?
    /// `Content-Disposition: attachment` instead of `inline` (`att:1`).
    var returnsAttachment = false
    /// Changes the URL, and so every cache's key, without changing the image (`cb:STRING`).
    var cachebuster = ""
    /// Unix time after which the URL answers 404 (`exp:TIMESTAMP`).
    var expires: Int?

    /// The segments left for the pixel parser.
    private(set) var remaining: [Substring] = []

    /// The options after `f:EXT` is added for the URL's `@ext`/`.ext`: the extension asks for the same
    /// output as `f:` does (flattened onto white for JPEG, as `f:jpg` is).
    /// `returnsAttachment` is the default of `att` (`IMGPROXY_RETURN_ATTACHMENT`).
    init(segments: [Substring], returnsAttachment defaultAttachment: Bool = false) throws(ServerFailure) {
        returnsAttachment = defaultAttachment
        for segment in segments {
            let parts = segment.split(separator: ":", omittingEmptySubsequences: false)
            let arguments = parts.dropFirst()
            switch parts[0] {
            case "filename", "fn":
                guard let name = arguments.first, !name.isEmpty else { filename = nil; continue }
                if arguments.count > 1, Self.bool(arguments[arguments.startIndex + 1]) {
                    guard let bytes = Base64URL.decode(name), let text = String(bytes: bytes, encoding: .utf8) else {
                        throw ServerFailure(status: 404, "invalid processing options: filename is not base64url")
                    }
                    filename = text
                } else {
                    filename = String(name).removingPercentEncoding ?? String(name)
                }
            case "return_attachment", "att":
                returnsAttachment = arguments.first.map(Self.bool) ?? false
            case "cachebuster", "cb":
                cachebuster = arguments.joined(separator: ":")
            case "expires", "exp":
                guard let text = arguments.first, let time = Int(text) else {
                    throw ServerFailure(status: 404, "invalid processing options: expires needs a Unix time")
                }
                expires = time
            default:
                remaining.append(segment)
            }
        }
    }

    /// imgproxy's boolean, Go's `strconv.ParseBool`: `1`, `t`, `T`, `true`, `TRUE` and `True` are true;
    /// anything else (`tRUE`, `yes`) is false, as imgproxy reads it. Case matters: Go accepts these three
    /// spellings of `true` and no other.
    static func bool(_ text: Substring) -> Bool { trueSpellings.contains(text) }

    /// The spellings `strconv.ParseBool` reads as true.
    private static let trueSpellings: Set<Substring> = ["1", "t", "T", "true", "TRUE", "True"]

    /// Whether the URL has expired at `now`.
    func hasExpired(now: Date = Date()) -> Bool {
        guard let expires else { return false }
        return Int(now.timeIntervalSince1970) >= expires
    }

    /// `Content-Disposition` for an answer of `fileExtension` whose source was `sourceURL`: the given
    /// file name, else the source's, with the output's extension.
    func contentDisposition(sourceURL: URL, fileExtension: String) -> String {
        let base =
            filename
            ?? (sourceURL.deletingPathExtension().lastPathComponent.isEmpty
                ? "image" : sourceURL.deletingPathExtension().lastPathComponent)
        let safe = base.replacingOccurrences(of: "\"", with: "%22").replacingOccurrences(of: "\r", with: "")
            .replacingOccurrences(of: "\n", with: "")
        return "\(returnsAttachment ? "attachment" : "inline"); filename=\"\(safe).\(fileExtension)\""
    }

    /// The part of the cache key these options add: the cachebuster alone (the file name and disposition
    /// are headers made per request, the bytes stay shared).
    var cacheKeyPart: String { "cb=\(cachebuster)" }
}
