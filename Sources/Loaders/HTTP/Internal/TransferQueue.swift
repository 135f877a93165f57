/// Waiting transfers by priority and, within a priority, by host, served round-robin across hosts:
/// each take moves on to the next host that has waiting work and a free connection, so a host with
/// hundreds of waiting requests gets one start per round like a host with one. Within one host,
/// requests are taken FIFO or LIFO. Entries are removed lazily: a cancelled transfer's entry stays
/// until it is reached and found stale.
struct TransferQueue: Sendable {
    struct Entry: Sendable {
        let transferID: UInt64
        let ticket: UInt64
        /// The transfer's ``PreparedRequest/hostKey``: its lane in the rotation.
        let host: String
    }

    /// One priority level: a lane of waiting entries per host, and the rotation over those hosts.
    private struct Level: Sendable {
        /// Per host, entries in enqueue order; `heads` marks the first one not yet taken.
        var lanes: [String: [Entry]] = [:]
        var heads: [String: Int] = [:]
        /// Hosts with a lane, in the order the rotation visits them.
        var rotation: [String] = []
        /// Index in `rotation` of the host asked first on the next take.
        var cursor = 0

        var isEmpty: Bool { rotation.isEmpty }

        mutating func append(_ entry: Entry) {
            if lanes[entry.host] == nil {
                lanes[entry.host] = []
                heads[entry.host] = 0
                rotation.append(entry.host)
            }
            lanes[entry.host]!.append(entry)
        }

        /// Puts `entry` where its host's lane is taken next, and makes that host the next one asked.
        mutating func pushNext(_ entry: Entry, order: HTTPLoaderConfiguration.ExecutionOrder) {
            append(entry)
            if order == .fifo {
                var lane = lanes[entry.host]!
                lane.removeLast()
                let head = heads[entry.host]!
                if head > 0 {
                    lane[head - 1] = entry
                    heads[entry.host] = head - 1
                } else {
                    lane.insert(entry, at: 0)
                }
                lanes[entry.host] = lane
            }
            if let index = rotation.firstIndex(of: entry.host) { cursor = index }
        }

        /// Takes from the next host in the rotation that has a live entry and may start one.
        mutating func take(
            order: HTTPLoaderConfiguration.ExecutionOrder, isLive: (Entry) -> Bool,
            canStart: (String) -> Bool
        ) -> Entry? {
            var visited = 0
            while visited < rotation.count {
                if cursor >= rotation.count { cursor = 0 }
                let host = rotation[cursor]
                guard let entry = takeLive(host, order: order, isLive: isLive) else {
                    // The lane held only stale entries: drop the host; the cursor now points at the next.
                    removeHost(at: cursor)
                    continue
                }
                guard canStart(host) else {
                    putBack(entry, order: order)
                    cursor += 1
                    visited += 1
                    continue
                }
                if laneIsEmpty(host) { removeHost(at: cursor) } else { cursor += 1 }
                return entry
            }
            return nil
        }

        /// Pops the next live entry of `host`'s lane in `order`, dropping stale ones on the way.
        private mutating func takeLive(
            _ host: String, order: HTTPLoaderConfiguration.ExecutionOrder,
            isLive: (Entry) -> Bool
        ) -> Entry? {
            var lane = lanes[host]!
            var head = heads[host]!
            // Take the lane out of the dictionary while editing, so the array is not copied.
            lanes[host] = nil
            defer {
                lanes[host] = lane
                heads[host] = head
            }
            // Reclaim the consumed front once it is most of the array (before taking, so a
            // ``putBack`` right after still finds the entry just before `head`).
            if head > 64 && head * 2 > lane.count {
                lane.removeFirst(head)
                head = 0
            }
            while head < lane.count {
                let entry: Entry
                switch order {
                case .fifo:
                    entry = lane[head]
                    head += 1
                case .lifo:
                    entry = lane.removeLast()
                }
                if isLive(entry) { return entry }
            }
            return nil
        }

        /// Undoes ``takeLive`` for an entry whose host is at its limit.
        private mutating func putBack(_ entry: Entry, order: HTTPLoaderConfiguration.ExecutionOrder) {
            switch order {
            case .fifo: heads[entry.host]! -= 1
            case .lifo: lanes[entry.host]!.append(entry)
            }
        }

        private func laneIsEmpty(_ host: String) -> Bool { heads[host]! >= lanes[host]!.count }

        private mutating func removeHost(at index: Int) {
            let host = rotation.remove(at: index)
            lanes[host] = nil
            heads[host] = nil
            if cursor > index { cursor -= 1 }
            if cursor >= rotation.count { cursor = 0 }
        }
    }

    /// One level per priority, indexed by `TransferPriority.rawValue`.
    private var levels: [Level] = Array(repeating: Level(), count: TransferPriority.allCases.count)

    mutating func append(_ entry: Entry, priority: TransferPriority) {
        levels[priority.rawValue].append(entry)
    }

    /// Puts `entry` where it is taken next in `order` (for retries, which already waited their turn).
    mutating func pushNext(_ entry: Entry, priority: TransferPriority, order: HTTPLoaderConfiguration.ExecutionOrder) {
        levels[priority.rawValue].pushNext(entry, order: order)
    }

    /// Takes the next entry that `isLive` accepts and whose host `canStart` allows, highest priority
    /// first, hosts in rotation within a priority. Stale entries met on the way are dropped; live ones
    /// whose host is busy stay in place.
    mutating func take(
        order: HTTPLoaderConfiguration.ExecutionOrder, isLive: (Entry) -> Bool,
        canStart: (String) -> Bool
    ) -> Entry? {
        for index in stride(from: levels.count - 1, through: 0, by: -1) where !levels[index].isEmpty {
            if let entry = levels[index].take(order: order, isLive: isLive, canStart: canStart) { return entry }
        }
        return nil
    }
}
