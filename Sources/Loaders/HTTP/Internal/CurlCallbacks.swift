import CCurl
#if canImport(Glibc)
import Glibc
#endif

/// The C callbacks handed to libcurl. Each gets its transfer's ``TransferIO`` as the context pointer:
/// unretained, because the event loop's `transfers` table owns the object for as long as its easy
/// handle exists, and libcurl calls these only from `curl_multi_perform` on the event thread.
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

    /// Opens the socket only for public addresses (when the SSRF guard is on): returning
    /// CURL_SOCKET_BAD makes libcurl fail the connection attempt.
    static let openSocket: curl_opensocket_callback = { context, _, address in
        guard let context, let address else { return ccurl_socket_bad }
        let io = Unmanaged<TransferIO>.fromOpaque(context).takeUnretainedValue()
        if let refused = AddressPolicy.refusedAddress(address, except: io.guardExceptions) {
            io.refusedAddress = refused
            return ccurl_socket_bad
        }
        // Close-on-exec, as libcurl's own sockets are: a server that spawns processes must not leak them.
        return socket(address.pointee.family, address.pointee.socktype | Int32(SOCK_CLOEXEC.rawValue),
                      address.pointee.protocol)
    }
}
