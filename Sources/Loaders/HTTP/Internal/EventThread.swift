import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Starts the loader's event thread with pthreads, so that a refused thread is an error the loader can
/// report (Foundation's `Thread.start()` gives no sign and the thread simply never runs).
enum EventThread {
    /// Runs `body` on a new detached thread named after the loader; returns 0, or the `errno` of a
    /// thread the system refused (`EAGAIN` at a process's or container's thread limit).
    static func start(_ body: @escaping @Sendable () -> Void) -> Int32 {
        let box = Unmanaged.passRetained(Body(body))
        var attributes = pthread_attr_t()
        pthread_attr_init(&attributes)
        defer { pthread_attr_destroy(&attributes) }
        pthread_attr_setdetachstate(&attributes, Int32(PTHREAD_CREATE_DETACHED))
        var thread = pthread_t()
        let result = pthread_create(
            &thread, &attributes,
            { context in
                let body = Unmanaged<Body>.fromOpaque(context!).takeRetainedValue()
                Thread.current.name = "WebImageHTTPLoader"
                body.run()
                return nil
            }, box.toOpaque())
        if result != 0 { box.release() }
        return result
    }

    /// The closure, in a class so its reference can cross pthread's `void *` argument.
    private final class Body: Sendable {
        let run: @Sendable () -> Void
        init(_ run: @escaping @Sendable () -> Void) { self.run = run }
    }
}
