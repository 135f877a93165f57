/// The names and dimensions of the swift-metrics metrics the HTTP loader (`HTTPLoader`) records, declared by the module that
/// records them (the load flow's are `WebImageMetrics`, in Core).
///
/// Like every plugin, it records through the process's `MetricsSystem`: nothing is recorded anywhere until
/// the application bootstraps a metrics backend.
public enum HTTPLoaderMetrics {
    /// Counter of finished HTTP transfers (after retries and redirects) of the HTTP loader (`HTTPLoader`).
    /// Dimensions: `status` (`2xx`, `3xx`, `4xx`, `5xx`, or `none` when no response came) and `result`
    /// (`success`, `failure`, `cancelled`).
    public static let requests = "webimage_http_requests_total"
    /// Counter of HTTP retries. Dimension: `reason` (`timeout`, `network`, `status`, `range_refused`, `other`).
    public static let retries = "webimage_http_retries_total"
    /// Counter of pooled HTTP/1.x connections the HTTP loader refused just before sending a request on
    /// them, closing each and sending that request on a new connection: the server had sent bytes after
    /// its last response, which would have been read as the next one's answer, or had closed it.
    /// Dimension: `reason` (`unread_bytes`, `closed`, `broken`).
    public static let staleConnections = "webimage_http_stale_connections_total"
    /// Counter of HTTP response body bytes received by transfers that finished.
    public static let responseBytes = "webimage_http_response_bytes_total"
    /// Timer from the start of an HTTP transfer to its first response byte (libcurl's `STARTTRANSFER`).
    public static let timeToFirstByte = "webimage_http_time_to_first_byte"
    /// Meter of HTTP transfers running now (holding a connection slot), over every loader of the process.
    public static let activeTransfers = "webimage_http_active_transfers"
    /// Meter of HTTP requests waiting in the loaders' queues for a slot, over every loader of the process.
    public static let queuedRequests = "webimage_http_queued_requests"
}
