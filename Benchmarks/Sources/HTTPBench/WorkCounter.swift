import Synchronization

/// Hands out indexes 0..<count to concurrent workers.
final class WorkCounter: Sendable {
    private let next = Atomic<Int>(0)
    let count: Int
    init(count: Int) { self.count = count }
    func take() -> Int? {
        let index = next.wrappingAdd(1, ordering: .relaxed).oldValue
        return index < count ? index : nil
    }
}
