import WebImageCore

/// Validation and key text shared by the filter transformers' initializers.
enum FilterParameter {
    /// `value` when it is finite and inside `range`, otherwise `ImageError/invalidParameter(name:reason:)`.
    static func checked(_ value: Double, name: String, in range: ClosedRange<Double>) throws(ImageError) -> Double {
        guard value.isFinite else { throw .invalidParameter(name: name, reason: "\(value) is not a finite number") }
        guard range.contains(value) else {
            throw .invalidParameter(name: name, reason: "\(value) is outside \(range.lowerBound)...\(range.upperBound)")
        }
        return value == 0 ? 0 : value  // -0 and 0 are the same parameter and must give the same key
    }

    /// `value` printed for a transformer key: Swift's shortest text that reads back as the same Double.
    static func keyText(_ value: Double) -> String { "\(value)" }
}
