import Foundation

/// Timings and sizes of one finished transfer, as libcurl measured them. Times are durations from the
/// start of the transfer (libcurl's `CURLINFO_*_TIME_T`, in microseconds), cumulative like libcurl's.
public struct HTTPTransferMetrics: Sendable, Hashable {
    /// Until the name was resolved.
    public var nameLookup: Duration
    /// Until the TCP connection was up.
    public var connect: Duration
    /// Until the TLS handshake was done; zero for plain http.
    public var tlsHandshake: Duration
    /// Until the first response byte arrived.
    public var firstByte: Duration
    /// The whole transfer, redirects included.
    public var total: Duration
    /// Body bytes delivered; for a body resumed from an interrupted transfer, the kept bytes count too.
    public var bytesReceived: Int64
    /// The HTTP version used: "1.0", "1.1", "2", "3", or "" when no response came.
    public var httpVersion: String
    /// Whether the transfer ran on a connection kept from an earlier transfer (no new connection).
    public var reusedConnection: Bool
    /// Redirects followed.
    public var redirectCount: Int
    /// Times the request was tried (more than 1 after retries).
    public var attempts: Int

    /// Metrics with every value given.
    public init(
        nameLookup: Duration, connect: Duration, tlsHandshake: Duration,
        firstByte: Duration, total: Duration, bytesReceived: Int64, httpVersion: String,
        reusedConnection: Bool, redirectCount: Int, attempts: Int
    ) {
        self.nameLookup = nameLookup
        self.connect = connect
        self.tlsHandshake = tlsHandshake
        self.firstByte = firstByte
        self.total = total
        self.bytesReceived = bytesReceived
        self.httpVersion = httpVersion
        self.reusedConnection = reusedConnection
        self.redirectCount = redirectCount
        self.attempts = attempts
    }
}
