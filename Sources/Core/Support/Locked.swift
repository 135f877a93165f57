import Synchronization

#if WEBIMAGE_TSAN
import Glibc
#endif

/// A value behind a lock: `Synchronization.Mutex` in every normal build.
///
/// The toolchain's Synchronization module is not instrumented for ThreadSanitizer, so TSan cannot see
/// `Mutex` being taken and reports every access under it as a race. Building with
/// `-Xswiftc -DWEBIMAGE_TSAN` (what `scripts/checks/sanitize thread` does) swaps in a `pthread_mutex_t`, whose
/// lock and unlock TSan intercepts; the rest of the project locks through this type so a TSan run
/// reports only real races. Each owner says in a comment what its lock guards.
#if !WEBIMAGE_TSAN
package struct Locked<Value: ~Copyable>: ~Copyable, Sendable {
    private let mutex: Mutex<Value>

    package init(_ initialValue: consuming sending Value) {
        mutex = Mutex(initialValue)
    }

    /// Runs `body` with exclusive access to the value.
    package borrowing func withLock<Result: ~Copyable, E: Error>(
        _ body: (inout sending Value) throws(E) -> sending Result
    ) throws(E) -> sending Result {
        try mutex.withLock(body)
    }
}
#else
package struct Locked<Value: ~Copyable>: ~Copyable, @unchecked Sendable {
    // Both pointers are owned by this value: allocated in init, freed in deinit. `value` is only read or
    // written between pthread_mutex_lock and pthread_mutex_unlock on `mutex` (the unchecked Sendable).
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    private let value: UnsafeMutablePointer<Value>

    package init(_ initialValue: consuming sending Value) {
        mutex = .allocate(capacity: 1)
        pthread_mutex_init(mutex, nil)
        value = .allocate(capacity: 1)
        value.initialize(to: initialValue)
    }

    deinit {
        value.deinitialize(count: 1)
        value.deallocate()
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    /// Runs `body` with exclusive access to the value.
    package borrowing func withLock<Result: ~Copyable, E: Error>(
        _ body: (inout sending Value) throws(E) -> sending Result
    ) throws(E) -> sending Result {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body(&value.pointee)
    }
}
#endif
