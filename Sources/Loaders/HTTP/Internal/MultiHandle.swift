internal import CCurl

/// libcurl's multi handle, shared between the event thread (which does everything with it) and the
/// callers' threads, which only ever call `curl_multi_wakeup` on it.
struct MultiHandle: @unchecked Sendable {
    // Unchecked: `curl_multi_wakeup` is the one multi call libcurl documents as safe from any thread;
    // every other use happens on the event thread. The scheduler calls wakeup only under its lock and
    // only while `multiClosed` is false, so it never races `curl_multi_cleanup`.
    let raw: UnsafeMutableRawPointer
}
