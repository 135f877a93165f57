internal import CCurl

#if canImport(Glibc)
import Glibc
#endif

/// The sockets under one loader's libcurl connections, and the check that keeps a pooled HTTP/1.x
/// connection holding unread bytes (or closed by the server) from carrying another request.
///
/// **The hole.** HTTP/1.1 has no request identifiers: a response is whatever the connection delivers
/// next. An origin (or anything on the path) that sends more than its `Content-Length` (a late extra
/// segment, or a whole second response) after the body, in a write of its own, leaves those bytes in
/// the socket while libcurl puts the connection back in its pool; the next request to the same
/// host and port (or through the same proxy) reads them as its answer: an error for an innocent URL, or
/// another URL's image as a 200, which the caller's cache then keeps under the wrong key. libcurl 7.88's
/// own check of a pooled connection (`cf_socket_conn_is_alive`, `ossl_check_cxn`) treats a readable
/// socket as alive unless the peek finds the peer's FIN, so pending bytes pass it; excess bytes are
/// caught only when they arrive in the same read as the body's end ("Excess found in a read").
///
/// **The check.** Every transfer sets CURLOPT_PREREQFUNCTION, which libcurl calls once the connection
/// for a hop is ready (new or from the pool; proxy tunnel and TLS done) and before the request is sent.
/// libcurl names the connection only by its endpoints (CURLINFO_ACTIVESOCKET is not the current
/// connection there: 7.88 sets it when a transfer gives its connection back), so every socket libcurl
/// opens goes through our opensocket callback (``opened(_:)``) and leaves through our closesocket
/// callback (``closed(_:)``), and ``admit(_:mayMultiplex:)`` finds the socket whose endpoints match. A
/// connection that carried a request before and speaks HTTP/1.x is then peeked without waiting: bytes,
/// a FIN or an error refuse it. The callback returns CURL_PREREQFUNC_ABORT; libcurl ends the transfer
/// with CURLE_ABORTED_BY_CALLBACK, which `multi_done` counts as premature, so a connection that does
/// not multiplex is closed, never pooled; the event loop then sends the hop's request again, once, on
/// a new connection (CURLOPT_FRESH_CONNECT). Nothing was sent on the refused connection.
///
/// **What it does not cover.** Bytes that reach us after the peek (sent after the next request went
/// out, or still in flight) are read as that request's answer: without request identifiers HTTP/1.1
/// cannot tell them apart, and no client check can. Garbage then fails the innocent request; a
/// well-formed response is taken for its answer. Only HTTP/2 (streams), or not reusing connections,
/// closes that window; the event loop stops reusing connections to a host once this check caught it
/// (`CurlMultiLoop.unframedHosts`), so only a host's first offence can land in it. Over TLS the peek sees the socket, not bytes a TLS library already read into its
/// own buffer; libcurl reads a TLS connection record by record and only while a response is unfinished.
///
/// New connections are not checked (what waits on one, a TLS 1.3 session ticket say, belongs to no
/// earlier request), nor connections that speak HTTP/2 or HTTP/3, whose frames name their stream and
/// may arrive at any time (PING, SETTINGS, other streams' data).
///
/// Event thread only: libcurl calls the callbacks from curl_multi_perform, and closes the last
/// connections in the event loop's teardown (curl_share_cleanup, curl_multi_cleanup), while this
/// object is still alive.
final class ConnectionRegistry {
    /// What a connection's response heads said about its framing.
    enum Framing {
        /// No response head seen yet.
        case unknown
        /// HTTP/1.0 or 1.1: responses follow each other in the byte stream.
        case http1
        /// HTTP/2 or HTTP/3: responses travel in frames that name their stream.
        case multiplexed
    }

    /// One registered socket: its descriptor, and which socket it was (descriptors are reused).
    struct Handle: Equatable {
        let descriptor: Int32
        let serial: UInt64
    }

    /// Why a pooled connection was refused; the `reason` of ``WebImageMetrics/httpStaleConnections``.
    enum Refusal: String {
        /// The server sent bytes after the last response, which no request asked for.
        case unreadBytes = "unread_bytes"
        /// The server closed its end.
        case closed
        /// The socket is in error (reset, say).
        case broken
    }

    /// The verdict on the connection libcurl is about to send a request on.
    enum Admission: Equatable {
        /// Send on it.
        case use(Handle)
        /// Not one of our sockets, or its endpoints did not parse: libcurl goes on as it would without
        /// the check (every socket of our transfers is opened through our callback, so this is not
        /// expected).
        case unknown
        /// Do not send on it; libcurl closes it.
        case refuse(Refusal)
    }

    private struct Connection {
        let serial: UInt64
        var endpoints: ConnectionEndpoints?
        /// Requests libcurl sent (or was about to send) on it.
        var requests = 0
        var framing = Framing.unknown
    }

    private var connections: [Int32: Connection] = [:]
    /// The descriptor of each connection whose endpoints are known.
    private var descriptors: [ConnectionEndpoints: Int32] = [:]
    /// Descriptors whose endpoints are not known yet (still connecting when last asked).
    private var unresolved: Set<Int32> = []
    private var nextSerial: UInt64 = 1

    /// libcurl opened `descriptor` (our opensocket callback).
    func opened(_ descriptor: Int32) {
        // An entry under the same descriptor is a socket libcurl closed itself (one it never used, such
        // as the loser of a happy-eyeballs race, goes without our closesocket callback).
        forget(descriptor)
        connections[descriptor] = Connection(serial: nextSerial)
        nextSerial += 1
        unresolved.insert(descriptor)
    }

    /// libcurl closes `descriptor` (our closesocket callback, which then closes it).
    func closed(_ descriptor: Int32) { forget(descriptor) }

    /// Decides whether libcurl may send the next request on the connection with `endpoints` (nil when
    /// its endpoints did not parse), and counts that request. `mayMultiplex` says whether the transfer
    /// may speak HTTP/2; when it may not, every reused connection is checked.
    func admit(_ endpoints: ConnectionEndpoints?, mayMultiplex: Bool) -> Admission {
        guard let endpoints, let descriptor = descriptor(for: endpoints), var connection = connections[descriptor]
        else {
            return .unknown
        }
        connection.requests += 1
        connections[descriptor] = connection
        let handle = Handle(descriptor: descriptor, serial: connection.serial)
        guard connection.requests > 1 else { return .use(handle) }
        // An HTTP/1.x connection goes back to the pool only after a whole response, whose head our
        // header callback saw: a reused connection without one is an HTTP/2 stream joining a connection
        // whose first response is still on its way.
        if mayMultiplex && connection.framing != .http1 { return .use(handle) }
        switch ccurl_socket_pending_input(descriptor) {
        case ccurl_socket_input_none: return .use(handle)
        case ccurl_socket_input_bytes: return .refuse(.unreadBytes)
        case ccurl_socket_input_closed: return .refuse(.closed)
        default: return .refuse(.broken)
        }
    }

    /// A response head on `handle`'s connection showed its framing. HTTP/2 once seen stays (a later
    /// head cannot make a multiplexed connection HTTP/1.x).
    func record(_ framing: Framing, on handle: Handle) {
        guard var connection = connections[handle.descriptor], connection.serial == handle.serial,
            connection.framing != .multiplexed
        else { return }
        connection.framing = framing
        connections[handle.descriptor] = connection
    }

    /// The registered socket whose endpoints are `endpoints` now, confirmed on the socket itself.
    private func descriptor(for endpoints: ConnectionEndpoints) -> Int32? {
        if let known = descriptors[endpoints] {
            if case .success(let current) = ConnectionEndpoints.of(socket: known), current == endpoints { return known }
            // The socket went away without our callback and its descriptor now holds something else.
            forget(known)
        }
        // Learn the endpoints of the sockets that connected since we last looked.
        for descriptor in unresolved {
            switch ConnectionEndpoints.of(socket: descriptor) {
            case .success(let found):
                unresolved.remove(descriptor)
                connections[descriptor]?.endpoints = found
                descriptors[found] = descriptor
            case .failure(let error) where error.code == ENOTCONN:
                continue
            case .failure:
                // Closed without our callback, and the descriptor is free or no longer a socket.
                forget(descriptor)
            }
        }
        return descriptors[endpoints]
    }

    private func forget(_ descriptor: Int32) {
        if let endpoints = connections.removeValue(forKey: descriptor)?.endpoints, descriptors[endpoints] == descriptor
        {
            descriptors.removeValue(forKey: endpoints)
        }
        unresolved.remove(descriptor)
    }
}
