import Foundation

/// Named starting points. Take one and change what you need:
///
/// ```swift
/// var configuration = HTTPLoaderConfiguration.server
/// configuration.allowedPrivateAddresses = ["10.0.0.5"]   // the one internal origin we fetch from
/// let loader = HTTPLoader(configuration: configuration)
/// ```
extension HTTPLoaderConfiguration {
    /// For apps showing images to one user, the way a browser loads a page's images: the defaults of
    /// ``init()``. 18 transfers at once but at most 6 per host (HTTP/1.1), hosts served in turn, so
    /// requests stalled on one host never keep another host's image waiting for a slot; 15 s to
    /// connect, 60 s per transfer, no response-head limit, a transfer fails only after 30 s without a
    /// single byte, any address allowed, no proxy.
    public static var interactive: HTTPLoaderConfiguration { HTTPLoaderConfiguration() }

    /// For servers that fetch URLs supplied by strangers (thumbnailers, image proxies, link previews):
    /// many slots in all but few per host, and every kind of slowness cut short so a bad origin frees
    /// its slots within seconds instead of holding them for a minute.
    ///
    /// | setting | value | why |
    /// |---|---|---|
    /// | ``maxConcurrentDownloads`` | 64 | downloads wait on the network, not the CPU: many can overlap |
    /// | ``maxConnectionsPerHost`` | 4 | one origin gets at most a sixteenth of the slots |
    /// | ``maxStreamsPerMultiplexedHost`` | 8 | an HTTP/2 origin is still one origin |
    /// | ``connectTimeout`` | 3 s | a healthy origin connects in well under a second, even across oceans |
    /// | ``responseHeadTimeout`` | 5 s | an origin that accepts and then says nothing is let go early |
    /// | ``timeout`` | 15 s | the whole download, a ceiling for big images on slow links |
    /// | ``lowSpeedLimit`` / ``lowSpeedTime`` | 4 KB/s over 5 s | a drip fails after 5 s, not 60 s |
    /// | ``maxRedirects`` | 5 | enough for real chains (http → https → CDN); a loop ends fast |
    /// | ``refusesPrivateAddresses`` | on | a stranger's URL must not reach the server's own network |
    ///
    /// Everything else is as in ``init()`` (64 MB body limit, 64 KB head limit, no proxy).
    /// <doc:OnAServer> sets these beside imgproxy's and thumbor's defaults.
    public static var server: HTTPLoaderConfiguration {
        var configuration = HTTPLoaderConfiguration()
        configuration.maxConcurrentDownloads = ServerPreset.totalSlots
        configuration.maxConnectionsPerHost = ServerPreset.slotsPerHost
        configuration.maxStreamsPerMultiplexedHost = ServerPreset.streamsPerMultiplexedHost
        configuration.connectTimeout = ServerPreset.connectTimeout
        configuration.responseHeadTimeout = ServerPreset.responseHeadTimeout
        configuration.timeout = ServerPreset.totalTimeout
        configuration.lowSpeedLimit = ServerPreset.lowSpeedFloor
        configuration.lowSpeedTime = ServerPreset.lowSpeedWindow
        configuration.refusesPrivateAddresses = true
        return configuration
    }
}

/// The numbers of ``HTTPLoaderConfiguration/server``, named; the table there gives the reasons.
private enum ServerPreset {
    static let totalSlots = 64
    static let slotsPerHost = 4
    static let streamsPerMultiplexedHost = 8
    static let connectTimeout: Duration = .seconds(3)
    static let responseHeadTimeout: Duration = .seconds(5)
    static let totalTimeout: Duration = .seconds(15)
    /// Bytes per second: a 100 KB image at this floor still arrives within ``totalTimeout``.
    static let lowSpeedFloor = 4 * 1024
    static let lowSpeedWindow: Duration = .seconds(5)
}
