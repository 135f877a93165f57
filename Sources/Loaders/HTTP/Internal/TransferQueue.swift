/// Waiting transfers by priority, taken in FIFO or LIFO order within a priority, skipping hosts that
/// are at their connection limit. Entries are removed lazily: a cancelled transfer's entry stays until
/// it is reached and found stale.
struct TransferQueue: Sendable {
    struct Entry: Sendable {
        let transferID: UInt64
        let ticket: UInt64
    }

    /// One bucket per priority, indexed by `TransferPriority.rawValue`; each is in enqueue order.
    private var buckets: [[Entry]] = Array(repeating: [], count: TransferPriority.allCases.count)
    /// Index of the first live entry per bucket, so FIFO takes are O(1) without shifting the array.
    private var heads: [Int] = Array(repeating: 0, count: TransferPriority.allCases.count)

    mutating func append(_ entry: Entry, priority: TransferPriority) {
        buckets[priority.rawValue].append(entry)
    }

    /// Puts `entry` where it is taken next in `order` (for retries, which already waited their turn).
    mutating func pushNext(_ entry: Entry, priority: TransferPriority, order: HTTPLoaderConfiguration.ExecutionOrder) {
        let index = priority.rawValue
        switch order {
        case .lifo: buckets[index].append(entry)
        case .fifo:
            if heads[index] > 0 {
                heads[index] -= 1
                buckets[index][heads[index]] = entry
            } else {
                buckets[index].insert(entry, at: 0)
            }
        }
    }

    /// Takes the next entry that `isLive` accepts and `canStart` allows, highest priority first.
    /// Stale entries met on the way are dropped; live ones whose host is busy stay in place.
    mutating func take(order: HTTPLoaderConfiguration.ExecutionOrder, isLive: (Entry) -> Bool,
                       canStart: (Entry) -> Bool) -> Entry? {
        for index in stride(from: buckets.count - 1, through: 0, by: -1) {
            if let entry = take(from: index, order: order, isLive: isLive, canStart: canStart) { return entry }
        }
        return nil
    }

    private mutating func take(from index: Int, order: HTTPLoaderConfiguration.ExecutionOrder,
                               isLive: (Entry) -> Bool, canStart: (Entry) -> Bool) -> Entry? {
        // Drop stale entries at the end we take from, so the common case is O(1).
        switch order {
        case .fifo:
            while heads[index] < buckets[index].count, !isLive(buckets[index][heads[index]]) { heads[index] += 1 }
        case .lifo:
            while buckets[index].count > heads[index], let last = buckets[index].last, !isLive(last) {
                buckets[index].removeLast()
            }
        }
        compact(index)
        let step = order == .fifo ? 1 : -1
        var position = order == .fifo ? heads[index] : buckets[index].count - 1
        while position >= heads[index] && position < buckets[index].count {
            let entry = buckets[index][position]
            if isLive(entry), canStart(entry) {
                if position == heads[index] { heads[index] += 1 } else { buckets[index].remove(at: position) }
                return entry
            }
            position += step
        }
        return nil
    }

    /// Reclaims the consumed front of a bucket once it is most of the array.
    private mutating func compact(_ index: Int) {
        if heads[index] > 64 && heads[index] * 2 > buckets[index].count {
            buckets[index].removeFirst(heads[index])
            heads[index] = 0
        }
    }
}
