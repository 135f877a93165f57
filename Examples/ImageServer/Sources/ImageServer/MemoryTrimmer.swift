import CMalloc
import ServiceLifecycle

/// Hands memory freed by finished requests back to the system, so the resident size after a load falls
/// back to what the caches hold instead of staying at the load's peak.
///
/// glibc keeps freed blocks in its arenas (up to eight per core) and returns them only from the top
/// of the main heap; decoded images and encoded answers are large and short-lived, so a burst leaves
/// hundreds of megabytes resident. The server caps the arenas when it loads (CMalloc.c) and trims every few
/// seconds: `malloc_trim` releases whole free pages of every arena and takes milliseconds.
struct MemoryTrimmer: Service {
    /// Seconds between trims.
    var interval: Duration = .seconds(5)

    func run() async throws {
        // Ends at once when the group shuts down: the sleep is cancelled.
        try? await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                try await Task.sleep(for: interval)
                _ = cmalloc_trim()
            }
        }
    }
}
