internal import CCurl

/// Idle libcurl easy handles kept for the next transfers. `curl_easy_init` and the receive buffer
/// each handle allocates are a visible share of a small image's cost; a reset handle keeps its buffer
/// and is as good as new (`curl_easy_reset` clears every option). Event thread only.
final class EasyHandlePool {
    private var idle: [UnsafeMutableRawPointer] = []
    /// Handles kept at most; enough for every running transfer to find one.
    private let limit: Int

    init(limit: Int) { self.limit = limit }

    deinit { drain() }

    /// An idle handle, or a new one; nil when libcurl is out of memory.
    func take() -> UnsafeMutableRawPointer? {
        if let handle = idle.popLast() { return handle }
        return curl_easy_init()
    }

    /// Takes back a handle that is no longer in the multi handle.
    func recycle(_ handle: UnsafeMutableRawPointer) {
        guard idle.count < limit else {
            curl_easy_cleanup(handle)
            return
        }
        // libcurl 7.88 (Debian 12) forgets, without freeing it, the cookie file list that
        // CURLOPT_COOKIEFILE builds when curl_easy_reset clears the options; setting the option to NULL
        // frees the list first (LeakSanitizer found this in `scripts/checks/sanitize address`).
        _ = ccurl_easy_setopt_string(handle, CURLOPT_COOKIEFILE, nil)
        curl_easy_reset(handle)
        idle.append(handle)
    }

    /// Frees every idle handle (before the share handles they point at are cleaned up).
    func drain() {
        for handle in idle { curl_easy_cleanup(handle) }
        idle.removeAll()
    }
}
