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

    /// A boolean read as imgproxy reads it (Go's `strconv.ParseBool`): `1`, `t`, `T`, `true`, `TRUE`,
    /// `True` are true; anything else, a typo included, is false (imgproxy logs it and goes on). An empty or
    /// missing argument keeps `value`.
    mutating func bool(_ what: String, default value: Bool) -> Bool {
        guard let text = next() else { return value }
        return Self.trueWords.contains(text)
    }

    /// A boolean as ``bool(_:default:)``, or nil when the argument is missing or empty.
    mutating func optionalBool() -> Bool? {
        guard let text = next() else { return nil }
        return Self.trueWords.contains(text)
    }

    /// The words Go's `strconv.ParseBool` reads as true.
    static let trueWords: Set<Substring> = ["1", "t", "T", "true", "TRUE", "True"]

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
    mutating func double(
        _ what: String, default value: Double, in range: ClosedRange<Double>
    ) throws(ImageError) -> Double {
        guard let text = next() else { return value }
        guard let number = Double(text), number.isFinite else {
            throw invalid("\(what) \"\(text)\" is not a finite number")
        }
        guard range.contains(number) else {
            throw invalid(
                "\(what) \(ProcessingNumber.text(number)) is outside "
                    + "\(ProcessingNumber.text(range.lowerBound))...\(ProcessingNumber.text(range.upperBound))")
        }
        return number
    }

    /// A whole number within `range`, or nil when the argument is missing or empty.
    mutating func optionalInt(_ what: String, in range: ClosedRange<Int>) throws(ImageError) -> Int? {
        guard peek() != nil else { _ = next(); return nil }
        return try int(what, default: 0, in: range)
    }

    /// A finite number within `range`, or nil when the argument is missing or empty.
    mutating func optionalDouble(_ what: String, in range: ClosedRange<Double>) throws(ImageError) -> Double? {
        guard peek() != nil else { _ = next(); return nil }
        return try double(what, default: 0, in: range)
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

    /// A gravity as imgproxy reads it: a type (`ce`, `no`, ..., `sowe`, `sm`) with optional x and y offsets
    /// (not with `sm`), or `fp:%x:%y` with both coordinates in 0...1. nil when the type is missing.
    mutating func gravity(allowSmart: Bool = true) throws(ImageError) -> GravityArgument? {
        guard let code = next() else {
            if remaining > 0 { throw invalid("gravity offsets need a gravity type") }
            return nil
        }
        if code == "fp" {
            guard remaining >= 2, peek() != nil else { throw invalid("fp needs x and y (fp:%x:%y)") }
            let x = try double("focal point x", default: 0.5, in: 0...1)
            guard peek() != nil else { throw invalid("fp needs x and y (fp:%x:%y)") }
            let y = try double("focal point y", default: 0.5, in: 0...1)
            return GravityArgument(gravity: .focalPoint(x: x, y: y))
        }
        guard let named = ProcessingNames.gravity(code: code) else {
            throw invalid("unknown gravity \"\(code)\" (ce, no, so, ea, we, noea, nowe, soea, sowe, sm, fp:x:y)")
        }
        if case .smart = named {
            guard allowSmart else { throw invalid("gravity sm is not allowed here") }
            guard remaining == 0 else { throw invalid("gravity sm takes no offsets") }
            return GravityArgument(gravity: named)
        }
        let limit = ProcessingOptions.maximumOffset
        let x = try double("gravity x offset", default: 0, in: -limit...limit)
        let y = try double("gravity y offset", default: 0, in: -limit...limit)
        return GravityArgument(gravity: named, offsetX: x == 0 ? 0 : x, offsetY: y == 0 ? 0 : y)
    }
}

/// A gravity read from the text with its offsets (0 for `sm` and `fp`).
struct GravityArgument {
    var gravity: Gravity
    var offsetX: Double = 0
    var offsetY: Double = 0
}

/// Numbers in the canonical text: whole values without a fraction (`2`, not `2.0`), others in Swift's
/// shortest form that reads back to the same `Double` (`0.1`, `1e-05`).
enum ProcessingNumber {
    /// Whole values up to this size print as integers; larger ones keep Swift's exponent form, which
    /// `Double(_:)` reads back exactly.
    private static let largestPlainInteger: Double = 1e15

    static func text(_ value: Double) -> String {
        if value == 0 { return "0" }  // also -0
        if value == value.rounded(), abs(value) < largestPlainInteger { return String(Int64(value)) }
        return "\(value)"
    }
}
