internal import CCurl

/// libcurl's process-wide state: `curl_global_init` runs exactly once, the first time a loader needs it.
enum CurlGlobal {
    /// Whether `curl_global_init` succeeded. Swift runs a static's initializer once, thread-safely,
    /// which is the "exactly once, before any other curl call" that libcurl asks for.
    static let isInitialized: Bool = curl_global_init(Int(CURL_GLOBAL_ALL)) == CURLE_OK

    /// libcurl's version ("7.88.1"), for the User-Agent.
    static let versionString: String = {
        _ = isInitialized
        guard let info = curl_version_info(ccurl_version_now), let version = info.pointee.version else {
            return "unknown"
        }
        return String(cString: version)
    }()
}
