/// What this process knows of the cache directory: each data file's size and expiry date, and the
/// totals, so ``DiskCache/totalSize`` and ``DiskCache/totalCount`` need no directory scan.
///
/// Not thread-safe by itself: ``DiskCache`` keeps it in a `Locked` (a Mutex). Built by a scan the first time it is
/// needed and rebuilt by every trim, which is when writes by other processes sharing the directory are
/// counted. While a scan runs outside the lock, this process's own changes are recorded in a journal and
/// replayed over the scan's result, so a store made during a trim is not forgotten.
struct DiskIndex {
    /// One data file.
    struct Entry {
        var size: Int
        /// The date expiry and trimming go by (access or modification date, per the configuration).
        var date: Double
    }

    /// A change made while a scan was running.
    private enum Change {
        case stored(Entry)
        case removed
    }

    private(set) var entries: [String: Entry] = [:]
    private(set) var totalSize = 0
    /// Whether a scan has filled the index; before that the totals are unknown.
    private(set) var isLoaded = false
    /// Changes since the running scan began; nil when no scan runs.
    private var journal: [String: Change]?
    /// Whether background maintenance (load, trim) is queued or running.
    var maintenanceScheduled = false

    var count: Int { entries.count }

    /// Records that `name` now holds `entry`.
    mutating func stored(_ name: String, _ entry: Entry) {
        journal?[name] = .stored(entry)
        guard isLoaded else { return }
        totalSize += entry.size - (entries.updateValue(entry, forKey: name)?.size ?? 0)
    }

    /// Records that `name` is gone.
    mutating func removed(_ name: String) {
        journal?[name] = .removed
        guard isLoaded, let old = entries.removeValue(forKey: name) else { return }
        totalSize -= old.size
    }

    /// Moves the date of an entry already indexed (a hit under access-date expiry).
    mutating func touched(_ name: String, date: Double) {
        entries[name]?.date = date
    }

    /// Starts recording changes, before a scan begins.
    mutating func beginScan() {
        journal = [:]
    }

    /// Replaces the contents with a scan's result and replays the changes made while it ran.
    mutating func finishScan(_ scanned: [String: Entry]) {
        entries = scanned
        totalSize = scanned.values.reduce(0) { $0 + $1.size }
        isLoaded = true
        let changes = journal ?? [:]
        journal = nil
        for (name, change) in changes {
            switch change {
            case .stored(let entry): stored(name, entry)
            case .removed: removed(name)
            }
        }
    }

    /// Drops the journal of a scan that failed; the index stays as it was.
    mutating func abandonScan() {
        journal = nil
    }
}
