import Foundation

/// One rule of `IMGPROXY_URL_REPLACEMENTS`: a source URL that starts with `pattern` has that start
/// replaced. `*` in the pattern matches a run of characters other than `/`, and the replacement may
/// name what the n-th `*` matched as `$n` or `${n}`. Rules apply in order, each to the result of the
/// one before, before `IMGPROXY_BASE_URL` is prepended (as imgproxy applies them).
struct URLReplacement: Sendable, Equatable {
    let pattern: String
    let replacement: String

    /// Rules from the variable's syntax, `pattern=replacement;pattern=replacement`; nil when an item has
    /// no `=`.
    static func rules(_ text: String) -> [URLReplacement]? {
        var rules: [URLReplacement] = []
        for item in text.split(separator: ";", omittingEmptySubsequences: true) {
            guard let equals = item.firstIndex(of: "=") else { return nil }
            rules.append(
                URLReplacement(
                    pattern: String(item[..<equals]), replacement: String(item[item.index(after: equals)...])))
        }
        return rules
    }

    /// `url` with this rule applied (unchanged when the pattern does not match its start).
    func apply(to url: String) -> String {
        let text = Array(url.unicodeScalars)
        guard let (end, captures) = Self.match(Array(pattern.unicodeScalars)[...], text[...], consumed: 0, captures: [])
        else {
            return url
        }
        var result = String.UnicodeScalarView()
        let template = Array(replacement.unicodeScalars)
        var index = 0
        while index < template.count {
            if template[index] == "$", let (group, next) = Self.groupReference(template, at: index + 1) {
                if group >= 1, group <= captures.count {
                    result.append(contentsOf: text[captures[group - 1]])
                }
                index = next
            } else {
                result.append(template[index])
                index += 1
            }
        }
        result.append(contentsOf: text[end...])
        return String(result)
    }

    /// Matches `pattern` at the start of `text`; a `*` takes as many non-`/` characters as it can and gives
    /// them back one by one until the rest matches (the leftmost, longest-first reading of imgproxy's
    /// regular expressions). Returns where the match ends and each `*`'s range.
    private static func match(
        _ pattern: ArraySlice<Unicode.Scalar>, _ text: ArraySlice<Unicode.Scalar>, consumed: Int,
        captures: [Range<Int>]
    ) -> (end: Int, captures: [Range<Int>])? {
        guard let head = pattern.first else { return (consumed, captures) }
        if head == "*" {
            let run = text.prefix { $0 != "/" }.count
            for length in stride(from: run, through: 0, by: -1) {
                let start = text.startIndex
                if let found = match(
                    pattern.dropFirst(), text.dropFirst(length), consumed: consumed + length,
                    captures: captures + [start..<(start + length)])
                {
                    return found
                }
            }
            return nil
        }
        guard text.first == head else { return nil }
        return match(pattern.dropFirst(), text.dropFirst(), consumed: consumed + 1, captures: captures)
    }

    /// A group number after a `$`: `1` or `{1}`; returns it and the index after it.
    private static func groupReference(_ template: [Unicode.Scalar], at start: Int) -> (Int, Int)? {
        var index = start
        let braced = index < template.count && template[index] == "{"
        if braced { index += 1 }
        let digitsStart = index
        while index < template.count, ("0"..."9").contains(template[index]) { index += 1 }
        guard index > digitsStart, let number = Int(String(String.UnicodeScalarView(template[digitsStart..<index])))
        else {
            return nil
        }
        if braced {
            guard index < template.count, template[index] == "}" else { return nil }
            index += 1
        }
        return (number, index)
    }
}
