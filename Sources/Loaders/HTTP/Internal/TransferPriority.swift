import WebImageCore

/// Queue priority of a transfer: `.highPriority` jumps the queue, `.lowPriority` waits for the rest.
enum TransferPriority: Int, Sendable, Comparable, CaseIterable {
    case low = 0, normal = 1, high = 2

    init(_ options: ImageOptions) {
        if options.contains(.highPriority) {
            self = .high
        } else if options.contains(.lowPriority) {
            self = .low
        } else {
            self = .normal
        }
    }

    static func < (lhs: TransferPriority, rhs: TransferPriority) -> Bool { lhs.rawValue < rhs.rawValue }
}
