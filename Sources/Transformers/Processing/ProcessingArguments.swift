import WebImageCore

/// The arguments of one processing option (`rs:fill:300:200` has name `rs` and three arguments), read one
/// at a time into typed values; every failure names the option as it was written.
struct ProcessingArguments {
    /// The option's name as written (`resize` or `rs`), used in errors.
    let option: String
    private let values: [Substring]
    private(set) var index = 0

    init(option: String, values: [Substring]) {
        self.option = option
        self.values = values
    }

    /// How many arguments are left.
    var remaining: Int { values.count - index }

    /// An error about this option.
    func invalid(_ reason: String) -> ImageError { .invalidParameter(name: option, reason: reason) }

    /// Throws when more than `count` arguments were given.
    func expectAtMost(_ count: Int) throws(ImageError) {
        guard values.count <= count else {
            throw invalid("takes at most \(count) argument\(count == 1 ? "" : "s"), got \(values.count)")
        }
    }

    /// The next argument, or nil when it is missing or empty (imgproxy's "use the default").
    mutating func next() -> Substring? {
        guard index < values.count else { return nil }
        defer { index += 1 }
        return values[index].isEmpty ? nil : values[index]
    }

    /// The next argument without consuming it.
    func peek() -> Substring? { index < values.count && !values[index].isEmpty ? values[index] : nil }

    /// A boolean: `1`, `t`, `true` or `0`, `f`, `false`.
    mutating func bool(_ what: String, default value: Bool) throws(ImageError) -> Bool {
        guard let text = next() else { return value }
        switch text.lowercased() {
        case "1", "t", "true": return true
        case "0", "f", "false": return false
        default: throw invalid("\(what) \"\(text)\" is not a boolean (1, t, true, 0, f or false)")
        }
    }

    /// A whole number within `range`.
    mutating func int(_ what: String, default value: Int, in range: ClosedRange<Int>) throws(ImageError) -> Int {
        guard let text = next() else { return value }
        guard let number = Int(text) else { throw invalid("\(what) \"\(text)\" is not a whole number") }
        guard range.contains(number) else {
            throw invalid("\(what) \(number) is outside \(range.lowerBound)...\(range.upperBound)")
        }
        return number
    }

    /// A finite number within `range`.
    mutating func double(_ what: String, default value: Double, in range: ClosedRange<Double>) throws(ImageError) -> Double {
        guard let text = next() else { return value }
        guard let number = Double(text), number.isFinite else {
            throw invalid("\(what) \"\(text)\" is not a finite number")
        }
        guard range.contains(number) else {
            throw invalid("\(what) \(ProcessingNumber.text(number)) is outside "
                          + "\(ProcessingNumber.text(range.lowerBound))...\(ProcessingNumber.text(range.upperBound))")
        }
        return number
    }

    /// A hexadecimal colour (`f00`, `ff0000`, `ff000080`).
    mutating func color(_ what: String) throws(ImageError) -> RGBAColor? {
        guard let text = next() else { return nil }
        return try Self.hexColor(text, what: what, option: option)
    }

    /// A hexadecimal colour read with ``RGBAColor/init(hex:)``, its error renamed after the option.
    static func hexColor(_ text: Substring, what: String, option: String) throws(ImageError) -> RGBAColor {
        // "#" would end a URL path; imgproxy's colours are bare hex digits.
        guard !text.hasPrefix("#") else {
            throw .invalidParameter(name: option, reason: "\(what) \"\(text)\" must be hexadecimal digits without #")
        }
        do {
            return try RGBAColor(hex: String(text))
        } catch {
            throw .invalidParameter(name: option, reason: "\(what) \"\(text)\" must be 3, 4, 6 or 8 hexadecimal digits")
        }
    }

    /// A gravity: a type (`ce`, `no`, ..., `sowe`, `sm`, `fp:%x:%y`) and optional offsets, which must be 0
    /// (the contract's ``Gravity`` has none). nil when the type is missing.
    mutating func gravity(allowSmart: Bool = true) throws(ImageError) -> Gravity? {
        guard let code = next() else {
            if remaining > 0 { throw invalid("gravity offsets need a gravity type") }
            return nil
        }
        let gravity: Gravity
        if code == "fp" {
            let x = try double("focal point x", default: 0.5, in: 0...1)
            let y = try double("focal point y", default: 0.5, in: 0...1)
            gravity = .focalPoint(x: x, y: y)
        } else if let named = ProcessingNames.gravity(code: code) {
            gravity = named
            if case .smart = named, !allowSmart { throw invalid("gravity sm is not allowed here") }
            for axis in ["x", "y"] {
                let offset = try double("gravity \(axis) offset", default: 0, in: -Double.greatestFiniteMagnitude...Double.greatestFiniteMagnitude)
                guard offset == 0 else { throw invalid("gravity offsets are not supported (\(axis) offset \(ProcessingNumber.text(offset)))") }
            }
        } else {
            throw invalid("unknown gravity \"\(code)\" (ce, no, so, ea, we, noea, nowe, soea, sowe, sm, fp:x:y)")
        }
        return gravity
    }
}

/// Numbers in the canonical text: whole values without a fraction (`2`, not `2.0`), others in Swift's
/// shortest form that reads back to the same `Double` (`0.1`, `1e-05`).
enum ProcessingNumber {
    /// Whole values up to this size print as integers; larger ones keep Swift's exponent form, which
    /// `Double(_:)` reads back exactly.
    private static let largestPlainInteger: Double = 1e15

    static func text(_ value: Double) -> String {
        if value == 0 { return "0" }   // also -0
        if value == value.rounded(), abs(value) < largestPlainInteger { return String(Int64(value)) }
        return "\(value)"
    }
}
