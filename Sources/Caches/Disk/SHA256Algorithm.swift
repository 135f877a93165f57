internal import CCrypto
import Synchronization
import WebImageCore

/// libcrypto's SHA-256, fetched once per process, with a small pool of reusable digest contexts.
///
/// OpenSSL 3 looks an algorithm up by name ("fetches" it) on every one-shot call, and `EVP_Digest`
/// allocates and frees a context each time; together that is most of the cost of naming a file. A
/// fetched algorithm and reused contexts bring a 40-byte key's digest well under a microsecond.
final class SHA256Algorithm: Sendable {
    /// The process-wide instance (Swift initialises globals once, thread-safely).
    static let shared = SHA256Algorithm()

    /// Contexts beyond this many in the pool are freed: more threads than this rarely hash at once.
    private static let poolLimit = 16

    /// The fetched `EVP_MD`, wrapped because a raw pointer is not `Sendable`.
    private struct Algorithm: @unchecked Sendable {
        // @unchecked: an immutable, reference-counted OpenSSL object that OpenSSL documents as safe to
        // use from many threads at once; fetched once and kept for the life of the process.
        let md: OpaquePointer
    }

    /// An `EVP_MD_CTX`, wrapped to pass through the pool's lock.
    private struct Context: @unchecked Sendable {
        // @unchecked: a context is owned by one thread at a time; the pool's lock hands it over
        // (popped, used, pushed back), so no two threads ever touch it at once.
        let pointer: OpaquePointer
    }

    private let algorithm: Algorithm
    /// Idle digest contexts.
    private let pool = Locked<[Context]>([])

    private init() {
        guard let md = EVP_MD_fetch(nil, "SHA256", nil) else {
            // Only a libcrypto built without SHA-256 (no distribution ships one) gets here.
            fatalError("libcrypto has no SHA-256")
        }
        algorithm = Algorithm(md: md)
    }

    /// Writes the 32-byte SHA-256 of `bytes` to `out`. Returns false only when libcrypto is out of memory.
    func digest(_ bytes: UnsafeBufferPointer<UInt8>, into out: UnsafeMutablePointer<UInt8>) -> Bool {
        let reused = pool.withLock { $0.popLast()?.pointer }
        guard let context = reused ?? EVP_MD_CTX_new() else { return false }
        var size: UInt32 = 0
        // A reused context already holds the algorithm: a nil type only resets its state, which skips
        // re-creating the provider's digest object.
        let ok =
            EVP_DigestInit_ex2(context, reused == nil ? algorithm.md : nil, nil) == 1
            && EVP_DigestUpdate(context, bytes.baseAddress, bytes.count) == 1
            && EVP_DigestFinal_ex(context, out, &size) == 1
            && size == 32
        let pooled = pool.withLock { idle -> Bool in
            guard idle.count < Self.poolLimit else { return false }
            idle.append(Context(pointer: context))
            return true
        }
        if !pooled { EVP_MD_CTX_free(context) }
        return ok
    }
}
