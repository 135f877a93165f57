import Foundation
import WebImageCore

#if canImport(Glibc)
import Glibc
#endif

/// The SSRF guard's check of a target host before any connection, for transfers that go through a
/// proxy: there the connected address is the proxy's, so the guard must judge the target by resolving
/// its name itself. The address it returns is then pinned (the proxy is asked for a tunnel to that
/// address), so a second lookup by the proxy cannot swap in another one.
///
/// Runs `getaddrinfo`, which blocks: call it off the event thread.
enum TargetCheck {
    /// The address to pin `host` to, or `.requestRefused` when any of its addresses is neither public nor
    /// among `exceptions`, or ``HTTPLoaderFailure/network(curlCode:)`` 6 when the name does not resolve.
    static func pinnedAddress(
        host: String, port: Int, except exceptions: AddressPolicy.Exceptions
    ) -> Result<String, ImageError> {
        // URL.host keeps the brackets of an IPv6 literal on some platforms.
        let name = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
        // Any family; every socket type (an address may repeat, once per type: harmless here).
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        var list: UnsafeMutablePointer<addrinfo>? = nil
        let status = getaddrinfo(name, String(port), &hints, &list)
        guard status == 0, let first = list else {
            // CURLE_COULDNT_RESOLVE_HOST, as libcurl would have reported it.
            return .failure(
                .httpLoader(
                    .network(curlCode: 6),
                    message: "Could not resolve host: \(name) (\(String(cString: gai_strerror(status))))"))
        }
        // `list` is ours until freeaddrinfo; nothing below keeps a pointer into it.
        defer { freeaddrinfo(list) }
        var pinned: String? = nil
        var node: UnsafeMutablePointer<addrinfo>? = first
        while let current = node {
            node = current.pointee.ai_next
            guard let address = current.pointee.ai_addr else { continue }
            let judged = AddressPolicy.judge(family: current.pointee.ai_family, UnsafeRawPointer(address))
            guard judged.isAllowed(except: exceptions) else {
                return .failure(
                    .requestRefused(
                        reason: "\(name) resolves to the non-public address \(judged.printable), which is not allowed"))
            }
            if pinned == nil {
                pinned = current.pointee.ai_family == AF_INET6 ? "[\(judged.printable)]" : judged.printable
            }
        }
        guard let pinned else {
            return .failure(
                .httpLoader(
                    .network(curlCode: 6),
                    message: "Could not resolve host: \(name) (no address)"))
        }
        return .success(pinned)
    }
}
