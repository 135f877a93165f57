/// imgproxy's presets: named lists of processing options (`IMGPROXY_PRESETS`), used by `preset`/`pr:NAME`
/// in a URL, with the preset named `default` applied to every URL first. Expanding them before the
/// options are read makes a preset mean exactly what its options written out would.
struct Presets: Sendable, Equatable {
    /// Option segments by preset name.
    var options: [String: [Substring]] = [:]
    /// `IMGPROXY_ONLY_PRESETS`: the URL's option segments are preset names, nothing else.
    var onlyPresets = false

    /// Reads `IMGPROXY_PRESETS`: `name=option/option,name=option` (imgproxy's form), the presets divided
    /// by `separator` (`IMGPROXY_PRESETS_SEPARATOR`, a comma by default).
    init(_ text: String?, separator: String = ",", onlyPresets: Bool = false) throws(ConfigurationError) {
        self.onlyPresets = onlyPresets
        guard let text else { return }
        for entry in text.split(separator: separator) {
            try add(String(entry), source: "IMGPROXY_PRESETS")
        }
    }

    /// Adds the presets of a presets file (`IMGPROXY_PRESETS_PATH`) as imgproxy reads one: a preset a
    /// line; empty lines and lines starting with `#` are skipped. A later preset of the same name wins.
    mutating func add(lines text: String, source: String) throws(ConfigurationError) {
        for line in text.split(whereSeparator: \.isNewline) where !line.isEmpty && !line.hasPrefix("#") {
            try add(String(line), source: source)
        }
    }

    /// Adds one `name=option/option` definition; `source` names the variable in errors.
    private mutating func add(_ entry: String, source: String) throws(ConfigurationError) {
        let trimmed = entry.trimmingCharacters(in: .whitespaces)
        guard let equals = trimmed.firstIndex(of: "="), equals != trimmed.startIndex else {
            throw ConfigurationError(name: source, value: trimmed, expected: "name=options")
        }
        let body = trimmed[trimmed.index(after: equals)...]
        options[String(trimmed[..<equals])] = body.split(separator: "/").map { Substring($0) }
    }

    init() {}

    /// `segments` with the default preset first and every preset reference replaced by its options;
    /// throws for a preset that does not exist (imgproxy: 404).
    func expand(_ segments: [Substring]) throws(ServerFailure) -> [Substring] {
        var expanded = options["default"] ?? []
        for segment in segments {
            let parts = segment.split(separator: ":", omittingEmptySubsequences: false)
            let names: [Substring]
            if onlyPresets {
                names = parts
            } else if parts[0] == "preset" || parts[0] == "pr" {
                names = Array(parts.dropFirst())
            } else {
                expanded.append(segment)
                continue
            }
            for name in names where !name.isEmpty {
                guard let preset = options[String(name)] else {
                    throw ServerFailure(status: 404, "invalid processing options: unknown preset \(name)")
                }
                expanded += preset
            }
        }
        return expanded
    }
}
