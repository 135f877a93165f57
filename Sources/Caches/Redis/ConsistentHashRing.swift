/// Maps keys to nodes so that adding or removing one node moves only about 1/n of the keys (the scheme of
/// ketama, twemproxy and most Redis client libraries, not Redis Cluster's 16,384 slots).
///
/// Each node is placed at ``pointsPerNode`` pseudo-random points on a 64-bit circle, derived from its
/// `host:port/db`; a key belongs to the first point at or after its own hash.
struct ConsistentHashRing: Sendable {
    /// Points per node: enough that two to a dozen nodes get shares within a few percent of equal.
    static let pointsPerNode = 160

    /// (position, node index), sorted by position.
    private let points: [(position: UInt64, node: Int)]

    /// A ring over nodes named by `names` (one per node, distinct).
    init(names: [String]) {
        var points: [(position: UInt64, node: Int)] = []
        points.reserveCapacity(names.count * Self.pointsPerNode)
        for (node, name) in names.enumerated() {
            for replica in 0..<Self.pointsPerNode {
                points.append((Self.hash(Array("\(name)#\(replica)".utf8)), node))
            }
        }
        self.points = points.sorted { $0.position < $1.position }
    }

    /// The index of the node that owns `key`.
    func node(for key: some Collection<UInt8>) -> Int {
        guard points.count > Self.pointsPerNode else { return 0 }
        let position = Self.hash(key)
        var low = 0
        var high = points.count
        while low < high {
            let middle = (low + high) / 2
            if points[middle].position < position { low = middle + 1 } else { high = middle }
        }
        return points[low == points.count ? 0 : low].node
    }

    /// FNV-1a, then SplitMix64's finalizer so that keys differing in their last bytes (URLs) still land
    /// far apart on the circle.
    static func hash(_ bytes: some Collection<UInt8>) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in bytes {
            hash ^= UInt64(byte)
            hash &*= 0x0000_0100_0000_01b3
        }
        hash = (hash ^ (hash >> 30)) &* 0xbf58_476d_1ce4_e5b9
        hash = (hash ^ (hash >> 27)) &* 0x94d0_49bb_1331_11eb
        return hash ^ (hash >> 31)
    }
}
