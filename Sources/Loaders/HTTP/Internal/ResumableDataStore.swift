import Foundation
import WebImageCore

/// The first bytes of a body whose transfer was cut short, and the validator that lets the next
/// attempt ask for the rest of the same representation (`Range: bytes=N-` with `If-Range`).
struct ResumableData: Sendable {
    /// The body bytes received, from the first.
    let data: Data
    /// The `If-Range` value: a strong ETag, or a Last-Modified that is strong by RFC 9110's rule.
    let validator: String
}

/// Interrupted bodies kept for the next attempt at the same request, in memory, least recently stored
/// dropped first so the bytes held never exceed ``capacity``.
///
/// Memory only, on purpose: a partial body is worth something for minutes (the retry, the user who
/// scrolls back), its validator may be stale by the next process, and disk would add files to clean
/// up after crashes. An entry is taken out (not copied) when an attempt resumes from it, so two
/// attempts never share one.
final class ResumableDataStore: Sendable {
    /// The most bytes held at once; an entry bigger than this alone is not kept.
    let capacity: Int

    private struct Entry {
        var resumable: ResumableData
        /// When it was stored, from ``State/clock``: the smallest is evicted first.
        var stamp: UInt64
    }

    private struct State {
        var entries: [TransferKey: Entry] = [:]
        var byteCount = 0
        var clock: UInt64 = 0
    }

    /// Guards the entries and their byte count.
    private let state = Locked(State())

    init(capacity: Int) { self.capacity = max(0, capacity) }

    /// Keeps `resumable` for `key` (replacing an older one), evicting the oldest entries until it fits.
    func store(_ resumable: ResumableData, for key: TransferKey) {
        let size = resumable.data.count
        guard size > 0, size <= capacity else { return }
        state.withLock { state in
            if let old = state.entries.removeValue(forKey: key) { state.byteCount -= old.resumable.data.count }
            // Few entries (capacity / minimum size): a scan for the oldest is cheaper than a list.
            while state.byteCount + size > capacity,
                let oldest = state.entries.min(by: { $0.value.stamp < $1.value.stamp })
            {
                state.entries.removeValue(forKey: oldest.key)
                state.byteCount -= oldest.value.resumable.data.count
            }
            state.clock += 1
            state.entries[key] = Entry(resumable: resumable, stamp: state.clock)
            state.byteCount += size
        }
    }

    /// Removes and returns the entry for `key`, if there is one.
    func take(for key: TransferKey) -> ResumableData? {
        state.withLock { state in
            guard let entry = state.entries.removeValue(forKey: key) else { return nil }
            state.byteCount -= entry.resumable.data.count
            return entry.resumable
        }
    }

    /// Bytes held now.
    var byteCount: Int { state.withLock { $0.byteCount } }

    /// Entries held now.
    var count: Int { state.withLock { $0.entries.count } }

    /// Drops every entry.
    func removeAll() {
        state.withLock { state in
            state.entries.removeAll()
            state.byteCount = 0
        }
    }
}
