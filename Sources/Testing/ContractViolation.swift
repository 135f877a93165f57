/// One way a plugin broke the contract of its protocol, as found by a contract check.
///
/// Contract checks return their violations instead of failing a test themselves, so they work under any
/// test framework: with Swift Testing, `#expect(violations.isEmpty, "\(violations)")`.
public struct ContractViolation: Sendable, Hashable, CustomStringConvertible {
    /// Which duty was broken, for example `"thumbnail size"`.
    public var duty: String
    /// What happened.
    public var detail: String

    /// A violation of `duty`, with what happened.
    public init(duty: String, detail: String) {
        self.duty = duty
        self.detail = detail
    }

    public var description: String { "\(duty): \(detail)" }
}

/// Flips bytes of a file reproducibly, for the corrupted-input checks.
struct ByteFlipper {
    /// SplitMix64: small, fast and the same on every platform, so a failing seed can be replayed.
    private var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// `bytes` with `count` bytes past the first `keep` replaced by random values.
    mutating func flipping(_ bytes: [UInt8], count: Int, keepingFirst keep: Int) -> [UInt8] {
        guard bytes.count > keep else { return bytes }
        var copy = bytes
        for _ in 0..<count {
            let index = keep + Int(next() % UInt64(bytes.count - keep))
            copy[index] = UInt8(truncatingIfNeeded: next())
        }
        return copy
    }
}
