import Foundation
import Synchronization
import WebImageCore

/// Recycles the memory blocks of response bodies once their `Data` is released.
///
/// A fresh block for every body means fresh pages, and the first write to each page faults: for
/// 1 MB images that was an eighth of the loader's CPU time in profiles. Blocks come back here from
/// `Data`'s deallocator (on whatever thread drops the last copy) and are handed out again, already
/// touched. The pool is bounded, so an idle loader holds at most ``maxPooledBytes``.
final class BodyBufferPool: Sendable {
    static let shared = BodyBufferPool()

    /// At most this many bytes wait in the pool: a dozen large images' worth, enough to spare the page
    /// faults of a busy loader without pinning much memory once it goes idle.
    static let maxPooledBytes = 16 * 1024 * 1024
    /// Blocks bigger than this are freed, not kept: rare, and keeping them would pin a lot of memory.
    static let maxPooledBlock = 4 * 1024 * 1024
    /// Blocks smaller than this are freed too: malloc recycles small blocks from its own free lists.
    static let minPooledBlock = 128 * 1024

    /// A free block, kept as its address: the pool never touches the memory, it only hands it out again.
    private struct Block {
        let address: UInt
        let capacity: Int
    }

    private struct State {
        var blocks: [Block] = []
        var pooledBytes = 0
    }

    /// Guards the free blocks.
    private let state = Locked(State())

    /// A block of at least `capacity` bytes (and its real capacity), from the pool when one fits.
    func take(atLeast capacity: Int) -> (UnsafeMutableRawPointer, Int)? {
        if capacity >= Self.minPooledBlock, capacity <= Self.maxPooledBlock {
            let pooled: Block? = state.withLock { state in
                var best: Int? = nil
                for (index, block) in state.blocks.enumerated() where block.capacity >= capacity {
                    if best == nil || block.capacity < state.blocks[best!].capacity { best = index }
                }
                guard let best else { return nil }
                let block = state.blocks.remove(at: best)
                state.pooledBytes -= block.capacity
                return block
            }
            if let pooled, let pointer = UnsafeMutableRawPointer(bitPattern: pooled.address) {
                return (pointer, pooled.capacity)
            }
        }
        guard let fresh = malloc(capacity) else { return nil }
        return (fresh, capacity)
    }

    /// Takes back a block (from `Data`'s deallocator); frees it when the pool is full or it is an odd size.
    func recycle(_ pointer: UnsafeMutableRawPointer, capacity: Int) {
        guard capacity >= Self.minPooledBlock, capacity <= Self.maxPooledBlock else {
            free(pointer)
            return
        }
        let address = UInt(bitPattern: pointer)
        let kept = state.withLock { state in
            guard state.pooledBytes + capacity <= Self.maxPooledBytes else { return false }
            state.blocks.append(Block(address: address, capacity: capacity))
            state.pooledBytes += capacity
            return true
        }
        if !kept { free(pointer) }
    }
}
