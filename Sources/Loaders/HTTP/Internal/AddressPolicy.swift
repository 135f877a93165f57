internal import CCurl
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// The SSRF guard: tells public internet addresses from loopback, private, link-local, unspecified,
/// multicast and reserved ones. Applied to the address libcurl is about to connect to, after DNS, so
/// a hostname that resolves to 127.0.0.1 (or a redirect to one) is caught too.
enum AddressPolicy {
    /// What the guard lets through besides public addresses, from the loader's configuration.
    struct Exceptions: Sendable {
        /// ``HTTPLoaderConfiguration/allowsPrivateNetworks``.
        var privateNetworks: Bool
        /// ``HTTPLoaderConfiguration/allowsLoopbackAddresses``.
        var loopback = false
        /// ``HTTPLoaderConfiguration/allowsLinkLocalAddresses``.
        var linkLocal = false
        /// ``HTTPLoaderConfiguration/allowedPrivateAddresses``, as ``Judgement/printable`` writes them.
        var addresses: Set<String>

        init(_ configuration: HTTPLoaderConfiguration) {
            privateNetworks = configuration.allowsPrivateNetworks
            loopback = configuration.allowsLoopbackAddresses
            linkLocal = configuration.allowsLinkLocalAddresses
            addresses = configuration.allowedPrivateAddresses
        }
    }

    /// A printable form of `address` when the guard refuses it; nil when it may be connected to.
    static func refusedAddress(_ address: UnsafePointer<curl_sockaddr>, except exceptions: Exceptions) -> String? {
        guard let offset = MemoryLayout<curl_sockaddr>.offset(of: \.addr) else { return "unknown" }
        let judged = judge(family: address.pointee.family, UnsafeRawPointer(address) + offset)
        return judged.isAllowed(except: exceptions) ? nil : judged.printable
    }

    /// One address as the guard sees it.
    struct Judgement {
        /// The address as logs and ``HTTPLoaderConfiguration/allowedPrivateAddresses`` write it.
        var printable: String
        var isPublic: Bool
        /// In a private network (``isPrivateNetworkIPv4(_:)``, ``isPrivateNetworkIPv6(_:)``).
        var isPrivateNetwork: Bool
        /// Loopback or unspecified (``isLoopbackIPv4(_:)``, ``isLoopbackIPv6(_:)``).
        var isLoopback = false
        /// Link-local, unicast or multicast (``isLinkLocalIPv4(_:)``, ``isLinkLocalIPv6(_:)``).
        var isLinkLocal = false

        /// Public, in a kind of network that is allowed, or one of the allowed addresses.
        func isAllowed(except exceptions: Exceptions) -> Bool {
            isPublic || (exceptions.privateNetworks && isPrivateNetwork) || (exceptions.loopback && isLoopback)
                || (exceptions.linkLocal && isLinkLocal) || exceptions.addresses.contains(printable)
        }
    }

    /// The socket address at `socketAddress` (a `sockaddr_in` or `sockaddr_in6` as `family` says),
    /// judged. Other families are never public.
    static func judge(family: Int32, _ socketAddress: UnsafeRawPointer) -> Judgement {
        switch family {
        case AF_INET:
            let ip = socketAddress.load(as: sockaddr_in.self).sin_addr
            let bytes = withUnsafeBytes(of: ip) { Array($0) }
            return Judgement(
                printable: bytes.map(String.init).joined(separator: "."), isPublic: isPublicIPv4(bytes),
                isPrivateNetwork: isPrivateNetworkIPv4(bytes), isLoopback: isLoopbackIPv4(bytes),
                isLinkLocal: isLinkLocalIPv4(bytes))
        case AF_INET6:
            let ip = socketAddress.load(as: sockaddr_in6.self).sin6_addr
            let bytes = withUnsafeBytes(of: ip) { Array($0) }
            return Judgement(
                printable: describe(ipv6: bytes), isPublic: isPublicIPv6(bytes),
                isPrivateNetwork: isPrivateNetworkIPv6(bytes), isLoopback: isLoopbackIPv6(bytes),
                isLinkLocal: isLinkLocalIPv6(bytes))
        default:
            return Judgement(printable: "address family \(family)", isPublic: false, isPrivateNetwork: false)
        }
    }

    /// The networks an organisation runs its own hosts in: 10/8, 172.16/12, 192.168/16 (RFC 1918) and
    /// 100.64/10 (carrier-grade NAT). Not loopback, link-local (where cloud metadata answers) or the
    /// other reserved ranges.
    static func isPrivateNetworkIPv4(_ b: [UInt8]) -> Bool {
        switch (b[0], b[1]) {
        case (10, _), (192, 168): return true
        case (172, let x) where x & 0xF0 == 16: return true
        case (100, let x) where x & 0xC0 == 64: return true
        default: return false
        }
    }

    /// fc00::/7 (unique local addresses), and IPv4-mapped addresses of ``isPrivateNetworkIPv4(_:)``.
    static func isPrivateNetworkIPv6(_ b: [UInt8]) -> Bool {
        if b[0..<10].allSatisfy({ $0 == 0 }) && b[10] == 0xFF && b[11] == 0xFF {
            return isPrivateNetworkIPv4(Array(b[12..<16]))
        }
        return b[0] & 0xFE == 0xFC
    }

    /// 127/8 (loopback) and 0.0.0.0 (unspecified, which reaches the host itself), as Go's `IsLoopback`
    /// and `IsUnspecified` (imgproxy's `IMGPROXY_ALLOW_LOOPBACK_SOURCE_ADDRESSES` covers both).
    static func isLoopbackIPv4(_ b: [UInt8]) -> Bool {
        b[0] == 127 || b.allSatisfy { $0 == 0 }
    }

    /// ::1 and ::, and IPv4-mapped addresses of ``isLoopbackIPv4(_:)``.
    static func isLoopbackIPv6(_ b: [UInt8]) -> Bool {
        if let v4 = mappedIPv4(b) { return isLoopbackIPv4(v4) }
        return b[0..<15].allSatisfy { $0 == 0 } && b[15] <= 1
    }

    /// 169.254/16 (link-local unicast, where cloud metadata answers) and 224.0.0/24 (link-local
    /// multicast), as Go's `IsLinkLocalUnicast` and `IsLinkLocalMulticast`.
    static func isLinkLocalIPv4(_ b: [UInt8]) -> Bool {
        (b[0] == 169 && b[1] == 254) || (b[0] == 224 && b[1] == 0 && b[2] == 0)
    }

    /// fe80::/10 (link-local unicast) and ff02::/16 (link-local multicast, any flags), and IPv4-mapped
    /// addresses of ``isLinkLocalIPv4(_:)``.
    static func isLinkLocalIPv6(_ b: [UInt8]) -> Bool {
        if let v4 = mappedIPv4(b) { return isLinkLocalIPv4(v4) }
        return (b[0] == 0xFE && b[1] & 0xC0 == 0x80) || (b[0] == 0xFF && b[1] & 0x0F == 0x02)
    }

    /// The IPv4 address inside an IPv4-mapped IPv6 one (::ffff:a.b.c.d).
    private static func mappedIPv4(_ b: [UInt8]) -> [UInt8]? {
        b[0..<10].allSatisfy({ $0 == 0 }) && b[10] == 0xFF && b[11] == 0xFF ? Array(b[12..<16]) : nil
    }

    /// Four bytes in network order.
    static func isPublicIPv4(_ b: [UInt8]) -> Bool {
        switch (b[0], b[1]) {
        case (0, _), (10, _), (127, _): return false  // "this" network, private, loopback
        case (100, let x) where x & 0xC0 == 64: return false  // 100.64/10 carrier-grade NAT
        case (169, 254): return false  // link-local (cloud metadata lives here)
        case (172, let x) where x & 0xF0 == 16: return false  // 172.16/12 private
        case (192, 168): return false  // private
        case (192, 0) where b[2] == 0: return false  // 192.0.0/24 IETF protocol assignments
        case (198, let x) where x & 0xFE == 18: return false  // 198.18/15 benchmarking
        case (let a, _) where a >= 224: return false  // multicast, reserved, broadcast
        default: return true
        }
    }

    /// Sixteen bytes in network order.
    static func isPublicIPv6(_ b: [UInt8]) -> Bool {
        if b[0..<10].allSatisfy({ $0 == 0 }) {
            // ::, ::1, IPv4-compatible (::a.b.c.d) and IPv4-mapped (::ffff:a.b.c.d): judge the IPv4 inside.
            if b[10] == 0xFF && b[11] == 0xFF { return isPublicIPv4(Array(b[12..<16])) }
            if b[10] == 0 && b[11] == 0 {
                return b[12..<15].allSatisfy({ $0 == 0 }) ? false : isPublicIPv4(Array(b[12..<16]))
            }
        }
        // NAT64
        if b[0] == 0x00 && b[1] == 0x64 && b[2] == 0xFF && b[3] == 0x9B { return isPublicIPv4(Array(b[12..<16])) }
        if b[0] == 0xFE && b[1] & 0xC0 == 0x80 { return false }  // fe80::/10 link-local
        if b[0] & 0xFE == 0xFC { return false }  // fc00::/7 unique local
        if b[0] == 0xFF { return false }  // multicast
        if b[0] == 0x20 && b[1] == 0x01 && b[2] == 0x0D && b[3] == 0xB8 { return false }  // documentation
        return true
    }

    static func describe(ipv6 bytes: [UInt8]) -> String {
        stride(from: 0, to: 16, by: 2).map { String(UInt16(bytes[$0]) << 8 | UInt16(bytes[$0 + 1]), radix: 16) }
            .joined(separator: ":")
    }
}
