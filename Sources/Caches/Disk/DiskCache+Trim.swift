import Foundation
import Glibc
import Logging
import WebImageCore

/// Expiry, size trimming and the index scans behind them.
extension DiskCache {
    /// Temporary files older than this are leftovers of a writer that crashed or was killed; a live
    /// write takes milliseconds, so an hour leaves a wide margin for a slow disk.
    static let staleTemporaryAge: Double = 60 * 60

    /// Removes entries older than `maxDiskAge`, then, when the rest exceed `maxDiskSize`, the oldest
    /// until at most half the limit remains (SDWebImage's `removeExpiredData`). Rescans the directory,
    /// so the index also counts entries other processes wrote; removes temporary files left by crashed
    /// writers and sidecars whose entry is gone. Files that vanish meanwhile are skipped. Blocks: see
    /// ``trim()`` for the background version. The first failure is thrown after the rest were attempted.
    public func removeExpiredData() throws(ImageError) {
        do throws(ImageError) {
            try scanLock.withLock { _ throws(ImageError) in try trimLocked() }
            DiskCacheMetricsRecorder.recordTrim(succeeded: true)
        } catch {
            DiskCacheMetricsRecorder.recordTrim(succeeded: false)
            throw error
        }
    }

    /// ``removeExpiredData()`` on the cache's maintenance queue, off the caller's thread.
    public func trim() async throws(ImageError) {
        let result: Result<Void, ImageError> = await withCheckedContinuation { continuation in
            maintenanceQueue.async {
                do throws(ImageError) {
                    try self.removeExpiredData()
                    continuation.resume(returning: .success(()))
                } catch {
                    continuation.resume(returning: .failure(error))
                }
            }
        }
        try result.get()
    }

    /// Waits until the background work scheduled so far (automatic trims, index loads) has finished.
    /// For tests and orderly shutdown; nothing else needs to wait for it.
    public func waitForMaintenance() async {
        await withCheckedContinuation { continuation in
            maintenanceQueue.async { continuation.resume() }
        }
    }

    /// Whether a store should start background work: to load the index (unknown totals) or to trim (over
    /// the limit). Marks the work as scheduled so concurrent stores start it once.
    func claimMaintenance(_ index: inout DiskIndex, limit: Int) -> Bool {
        guard limit > 0, !index.maintenanceScheduled, !index.isLoaded || index.totalSize > limit else { return false }
        index.maintenanceScheduled = true
        return true
    }

    func scheduleMaintenance() {
        maintenanceQueue.async {
            // Cleared first: a store after this point schedules another run (queued behind this one),
            // and every store before it is in the totals checked below, so no crossing is missed.
            self.index.withLock { $0.maintenanceScheduled = false }
            self.ensureIndexLoaded()
            if self.index.withLock({ $0.totalSize }) > self.configuration.maxDiskSize {
                // Nobody is waiting for an automatic trim; what it could not remove, the next one retries.
                do throws(ImageError) {
                    try self.removeExpiredData()
                } catch {
                    // A warning, not debug: no caller sees this failure, and a cache that cannot trim
                    // grows past its limit until someone looks.
                    DiskCacheMetricsRecorder.recordSwallowedError(operation: "trim")
                    self.logger.warning(
                        "automatic trim failed", metadata: ["directory": "\(self.path)", "error": "\(error)"])
                }
            }
        }
    }

    /// Fills the index by one directory scan, unless it is already filled.
    func ensureIndexLoaded() {
        if index.withLock({ $0.isLoaded }) { return }
        scanLock.withLock { _ in
            if index.withLock({ $0.isLoaded }) { return }
            index.withLock { $0.beginScan() }
            let started = ContinuousClock.now
            let scan: DirectoryScan
            do throws(ImageError) {
                scan = try DirectoryScan(path: path)
            } catch {
                // Unreadable: totals stay unknown (zero) and the next call tries again. A warning, not
                // debug: the totals callers read are then wrong, and nothing else says why.
                index.withLock { $0.abandonScan() }
                DiskCacheMetricsRecorder.recordSwallowedError(operation: "scan")
                logger.warning("index scan failed", metadata: ["directory": "\(path)", "error": "\(error)"])
                return
            }
            var entries: [String: DiskIndex.Entry] = [:]
            entries.reserveCapacity(scan.entries.count)
            for entry in scan.entries {
                entries[entry.name] = DiskIndex.Entry(size: entry.info.size, date: expiryDate(entry.info))
            }
            updateIndex { $0.finishScan(entries) }
            logger.debug(
                "index loaded",
                metadata: [
                    "directory": "\(path)", "entries": "\(entries.count)",
                    "bytes": "\(entries.values.reduce(0) { $0 + $1.size })",
                    "ms": "\(Self.milliseconds(since: started))",
                ])
        }
    }

    /// The trim itself; the caller holds ``scanLock``.
    private func trimLocked() throws(ImageError) {
        let started = ContinuousClock.now
        index.withLock { $0.beginScan() }
        let scan: DirectoryScan
        do throws(ImageError) {
            scan = try DirectoryScan(path: path)
        } catch {
            index.withLock { $0.abandonScan() }
            throw error
        }
        let now = Date().timeIntervalSince1970
        let (ageSeconds, ageAttoseconds) = configuration.maxDiskAge.components
        let maxAge = Double(ageSeconds) + Double(ageAttoseconds) / 1e18  // file dates are seconds
        let oldestKept = maxAge > 0 ? now - maxAge : -Double.infinity
        var firstError: ImageError? = nil
        var kept: [String: DiskIndex.Entry] = [:]
        kept.reserveCapacity(scan.entries.count)

        func delete(_ name: String) -> Bool {
            do {
                try DiskIO.remove(filePath(name))
                let sidecar = CacheFileName.sidecar(for: name)
                if scan.sidecars.contains(sidecar) { try DiskIO.remove(filePath(sidecar)) }
                return true
            } catch {
                firstError = firstError ?? error
                return false
            }
        }

        // 1. Age.
        var (expired, expiredBytes, evicted, evictedBytes) = (0, 0, 0, 0)
        for entry in scan.entries {
            let date = expiryDate(entry.info)
            if date < oldestKept, delete(entry.name) {
                expired += 1
                expiredBytes += entry.info.size
                continue
            }
            kept[entry.name] = DiskIndex.Entry(size: entry.info.size, date: date)
        }
        // 2. Size: oldest first, down to half the limit, so the next trim is many stores away.
        let limit = configuration.maxDiskSize
        var total = kept.values.reduce(0) { $0 + $1.size }
        if limit > 0, total > limit {
            let target = limit / 2
            let oldestFirst = kept.sorted { ($0.value.date, $0.key) < ($1.value.date, $1.key) }
            for (name, entry) in oldestFirst where total > target {
                if delete(name) {
                    kept[name] = nil
                    total -= entry.size
                    evicted += 1
                    evictedBytes += entry.size
                }
            }
        }
        // 3. Leftovers: sidecars without an entry, temporary files of dead writers. Best effort.
        for sidecar in scan.sidecars {
            // The owner may have been written after the scan passed it: check it is really gone.
            if let owner = CacheFileName.dataFile(forSidecar: sidecar), kept[owner] == nil,
                access(filePath(owner), F_OK) != 0, errno == ENOENT
            {
                _ = try? DiskIO.remove(filePath(sidecar))
            }
        }
        for temporary in scan.temporaries where temporary.modificationDate < now - Self.staleTemporaryAge {
            _ = try? DiskIO.remove(filePath(temporary.name))
        }
        updateIndex { $0.finishScan(kept) }
        logger.debug(
            "trim finished",
            metadata: [
                "directory": "\(path)", "expired": "\(expired)", "expired_bytes": "\(expiredBytes)",
                "evicted": "\(evicted)", "evicted_bytes": "\(evictedBytes)", "kept": "\(kept.count)",
                "kept_bytes": "\(total)", "ms": "\(Self.milliseconds(since: started))",
                "error": "\(firstError.map { "\($0)" } ?? "none")",
            ])
        if let firstError { throw firstError }
    }

    static func milliseconds(since started: ContinuousClock.Instant) -> Int64 {
        let (seconds, attoseconds) = (ContinuousClock.now - started).components
        return seconds * 1000 + attoseconds / 1_000_000_000_000_000
    }
}
