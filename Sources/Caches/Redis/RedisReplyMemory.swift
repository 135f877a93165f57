internal import CRedis

/// Memory kept for the strings of large replies (`credis_block_pool`), shared by every connection of
/// one ``RedisCache``: a value's block goes back here when the last `Data` made from it is gone, and a
/// later reply of a similar size reuses it. Without it, multi-gets run from threads other than the main
/// one allocate and free a few hundred kilobytes per round trip, which glibc gives back to the kernel and
/// faults in again every time; that cost as much as the network read itself.
final class RedisReplyMemory: Sendable {
    /// The pool's address (so the type is plainly `Sendable`); the pool itself locks around its lists and
    /// counts references atomically. 0 when it could not be made: replies then use malloc.
    private let pool: UInt

    /// A pool keeping at most `retainedLimit` bytes of unused blocks.
    init(retainedLimit: Int) {
        pool = UInt(bitPattern: credis_block_pool_create(max(0, retainedLimit)))
    }

    deinit { credis_block_pool_release(pointer) }

    /// The pool for `credis_exchange`; nil means malloc.
    var pointer: OpaquePointer? { OpaquePointer(bitPattern: pool) }

    /// Bytes of unused blocks kept now.
    var retainedBytes: Int {
        guard let pointer else { return 0 }
        return credis_block_pool_retained(pointer)
    }
}
