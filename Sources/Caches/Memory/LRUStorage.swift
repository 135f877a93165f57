/// A least-recently-used map bounded by total cost and count, with O(1) get, set and remove.
///
/// Not thread-safe by itself: `MemoryCache` keeps it inside a `Locked` (a Mutex). Entries live in an array of
/// nodes linked by index (no per-entry class allocation), with freed slots reused.
struct LRUStorage<Value> {
    private struct Node {
        var key: String
        var value: Value?
        var cost: Int
        var previous: Int
        var next: Int
    }

    /// Index meaning "no node".
    private static var none: Int { -1 }

    private var nodes: [Node] = []
    private var free: [Int] = []
    private var indexByKey: [String: Int] = [:]
    /// Most recently used.
    private var head = LRUStorage.none
    /// Least recently used: the next to go.
    private var tail = LRUStorage.none

    private(set) var totalCost = 0
    var count: Int { indexByKey.count }

    var costLimit: Int
    var countLimit: Int

    init(costLimit: Int, countLimit: Int) {
        self.costLimit = costLimit
        self.countLimit = countLimit
    }

    /// The value for `key`, made the most recently used.
    mutating func value(forKey key: String) -> Value? {
        guard let index = indexByKey[key] else { return nil }
        moveToFront(index)
        return nodes[index].value
    }

    /// The value for `key` without changing its recency.
    func peek(_ key: String) -> Value? {
        indexByKey[key].flatMap { nodes[$0].value }
    }

    /// Stores `value`, then evicts least recently used entries until within the limits.
    /// Returns the evicted values so the caller can release them outside its lock.
    @discardableResult
    mutating func set(_ value: Value, forKey key: String, cost: Int) -> [Value] {
        let cost = max(0, cost)
        if let index = indexByKey[key] {
            totalCost += cost - nodes[index].cost
            nodes[index].value = value
            nodes[index].cost = cost
            moveToFront(index)
        } else {
            let node = Node(key: key, value: value, cost: cost, previous: Self.none, next: head)
            let index: Int
            if let reused = free.popLast() {
                nodes[reused] = node
                index = reused
            } else {
                nodes.append(node)
                index = nodes.count - 1
            }
            if head != Self.none { nodes[head].previous = index }
            head = index
            if tail == Self.none { tail = index }
            indexByKey[key] = index
            totalCost += cost
        }
        return trim()
    }

    /// Removes `key`; returns its value.
    @discardableResult
    mutating func remove(_ key: String) -> Value? {
        guard let index = indexByKey.removeValue(forKey: key) else { return nil }
        return release(index)
    }

    /// Removes everything.
    mutating func removeAll() {
        nodes.removeAll()
        free.removeAll()
        indexByKey.removeAll()
        head = Self.none
        tail = Self.none
        totalCost = 0
    }

    /// Evicts least recently used entries until within both limits.
    mutating func trim() -> [Value] {
        var evicted: [Value] = []
        while (totalCost > costLimit || count > countLimit), tail != Self.none {
            let key = nodes[tail].key
            indexByKey.removeValue(forKey: key)
            if let value = release(tail) { evicted.append(value) }
        }
        return evicted
    }

    /// Keys from most to least recently used.
    var keysByRecency: [String] {
        var keys: [String] = []
        var index = head
        while index != Self.none {
            keys.append(nodes[index].key)
            index = nodes[index].next
        }
        return keys
    }

    private mutating func unlink(_ index: Int) {
        let (previous, next) = (nodes[index].previous, nodes[index].next)
        if previous != Self.none { nodes[previous].next = next } else { head = next }
        if next != Self.none { nodes[next].previous = previous } else { tail = previous }
    }

    private mutating func moveToFront(_ index: Int) {
        guard head != index else { return }
        unlink(index)
        nodes[index].previous = Self.none
        nodes[index].next = head
        if head != Self.none { nodes[head].previous = index }
        head = index
        if tail == Self.none { tail = index }
    }

    private mutating func release(_ index: Int) -> Value? {
        unlink(index)
        totalCost -= nodes[index].cost
        let value = nodes[index].value
        nodes[index].value = nil
        free.append(index)
        return value
    }
}
