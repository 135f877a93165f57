internal import CCurl

/// The two ends (addresses and ports) of a TCP connection: how the check before a request finds the
/// socket of the connection libcurl picked, which libcurl names only by its endpoints.
struct ConnectionEndpoints: Hashable {
    private let family: Int32
    private let localPort: UInt16
    private let remotePort: UInt16
    private let local: (UInt64, UInt64)
    private let remote: (UInt64, UInt64)

    private init(_ raw: ccurl_endpoints) {
        family = raw.family
        localPort = raw.local_port
        remotePort = raw.remote_port
        local = (raw.local.0, raw.local.1)
        remote = (raw.remote.0, raw.remote.1)
    }

    /// The endpoints as libcurl's pre-request callback states them (numeric addresses as text); nil
    /// when they do not parse (no address, or not IPv4 or IPv6).
    init?(remoteIP: UnsafePointer<CChar>?, remotePort: Int32, localIP: UnsafePointer<CChar>?, localPort: Int32) {
        var raw = ccurl_endpoints()
        guard ccurl_endpoints_from_text(remoteIP, remotePort, localIP, localPort, &raw) else { return nil }
        self.init(raw)
    }

    /// The endpoints of the connected socket `descriptor`, or the error that says why there are none
    /// (ENOTCONN while it connects; EBADF or ENOTSOCK once the descriptor is closed or reused).
    static func of(socket descriptor: Int32) -> Result<ConnectionEndpoints, SocketError> {
        var raw = ccurl_endpoints()
        let error = ccurl_endpoints_of_socket(descriptor, &raw)
        return error == 0 ? .success(ConnectionEndpoints(raw)) : .failure(SocketError(code: error))
    }

    /// Why a socket has no endpoints (an `errno` value).
    struct SocketError: Error {
        let code: Int32
    }

    static func == (lhs: ConnectionEndpoints, rhs: ConnectionEndpoints) -> Bool {
        lhs.family == rhs.family && lhs.localPort == rhs.localPort && lhs.remotePort == rhs.remotePort
            && lhs.local == rhs.local && lhs.remote == rhs.remote
    }

    func hash(into hasher: inout Hasher) {
        hasher.combine(family)
        hasher.combine(localPort)
        hasher.combine(remotePort)
        hasher.combine(local.0)
        hasher.combine(local.1)
        hasher.combine(remote.0)
        hasher.combine(remote.1)
    }
}
