internal import CCurl

#if canImport(Glibc)
import Glibc
#endif

/// The C callbacks handed to libcurl. Each but ``closeSocket`` gets its transfer's ``TransferIO`` as the
/// context pointer: unretained, because the event loop's `transfers` table owns the object for as long
/// as its easy handle exists, and libcurl calls these only from `curl_multi_perform` on the event thread.
enum CurlCallbacks {
    static let body: curl_write_callback = { pointer, size, count, context in
        guard let context else { return 0 }
        let io = Unmanaged<TransferIO>.fromOpaque(context).takeUnretainedValue()
        return io.receiveBody(UnsafeRawBufferPointer(start: pointer, count: size * count))
    }

    static let header: curl_write_callback = { pointer, size, count, context in
        guard let context else { return 0 }
        let io = Unmanaged<TransferIO>.fromOpaque(context).takeUnretainedValue()
        return io.receiveHeader(UnsafeRawBufferPointer(start: pointer, count: size * count))
    }

    /// Opens every socket of our transfers, so the connection registry knows them (see
    /// ``ConnectionRegistry``), and only for public addresses when the SSRF guard judges this
    /// transfer's connections: returning CURL_SOCKET_BAD makes libcurl fail the connection attempt.
    static let openSocket: curl_opensocket_callback = { context, _, address in
        guard let context, let address else { return ccurl_socket_bad }
        let io = Unmanaged<TransferIO>.fromOpaque(context).takeUnretainedValue()
        if io.checksConnectedAddresses, let refused = AddressPolicy.refusedAddress(address, except: io.guardExceptions)
        {
            io.refusedAddress = refused
            return ccurl_socket_bad
        }
        // Close-on-exec, as libcurl's own sockets are: a server that spawns processes must not leak them.
        let descriptor = socket(
            address.pointee.family, address.pointee.socktype | Int32(SOCK_CLOEXEC.rawValue),
            address.pointee.protocol)
        if descriptor >= 0 { io.connections.opened(descriptor) }
        return descriptor
    }

    /// Closes a connection's socket. The context is the event loop's ``ConnectionRegistry``, not a
    /// transfer: libcurl keeps this pointer with the connection, which outlives the transfer that
    /// opened it, and the registry outlives every connection (the event loop's teardown closes them).
    static let closeSocket: curl_closesocket_callback = { context, descriptor in
        if let context { Unmanaged<ConnectionRegistry>.fromOpaque(context).takeUnretainedValue().closed(descriptor) }
        return close(descriptor)
    }

    /// libcurl is about to send a hop's request on its connection: refuses a pooled connection that
    /// holds unread bytes or was closed (see ``ConnectionRegistry``). Aborting ends the transfer with
    /// CURLE_ABORTED_BY_CALLBACK and closes that connection; the event loop sends the request again.
    static let prerequest: curl_prereq_callback = { context, remoteIP, localIP, remotePort, localPort in
        guard let context else { return ccurl_prereq_ok }
        let io = Unmanaged<TransferIO>.fromOpaque(context).takeUnretainedValue()
        let endpoints = ConnectionEndpoints(
            remoteIP: remoteIP, remotePort: remotePort, localIP: localIP, localPort: localPort)
        return io.admitConnection(endpoints) ? ccurl_prereq_ok : ccurl_prereq_abort
    }
}
