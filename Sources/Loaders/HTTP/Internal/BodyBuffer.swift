import Foundation

/// The bytes of one response body, in one malloc'ed block that grows by doubling and is handed to
/// `Data` without a copy at the end. `Data.append` per chunk showed up in profiles; this is a plain
/// memcpy into place. Large blocks come from, and go back to, ``BodyBufferPool``.
///
/// Owned by one ``TransferIO`` on the event thread.
final class BodyBuffer {
    private var storage: UnsafeMutableRawPointer?
    private var capacity = 0
    /// Bytes held.
    private(set) var count = 0

    deinit {
        if let storage { BodyBufferPool.shared.recycle(storage, capacity: capacity) }
    }

    /// Makes room for `total` bytes in all (the declared Content-Length), so a body of known size is
    /// copied exactly once.
    func reserve(_ total: Int) {
        guard total > capacity, count == 0 else { return }
        guard let (block, size) = BodyBufferPool.shared.take(atLeast: total) else { return }
        if let storage { BodyBufferPool.shared.recycle(storage, capacity: capacity) }
        storage = block
        capacity = size
    }

    /// Appends `bytes`. False when memory ran out (the transfer then fails).
    func append(_ bytes: UnsafeRawBufferPointer) -> Bool {
        guard let source = bytes.baseAddress, !bytes.isEmpty else { return true }
        if count + bytes.count > capacity {
            let wanted = max(count + bytes.count, max(16 * 1024, capacity * 2))
            guard let grown = realloc(storage, wanted) else { return false }
            storage = grown
            capacity = wanted
        }
        (storage! + count).copyMemory(from: source, byteCount: bytes.count)
        count += bytes.count
        return true
    }

    /// A copy of the bytes so far (for a progressive decoder joining late).
    func copy() -> Data {
        guard let storage else { return Data() }
        return Data(bytes: storage, count: count)
    }

    /// The bytes as `Data`, transferring ownership of the block; the buffer is empty afterwards.
    func take() -> Data {
        guard let block = storage, count > 0 else { return Data() }
        storage = nil
        let taken = count
        let size = capacity
        capacity = 0
        count = 0
        return Data(
            bytesNoCopy: block, count: taken,
            deallocator: .custom { pointer, _ in
                BodyBufferPool.shared.recycle(pointer, capacity: size)
            })
    }
}
