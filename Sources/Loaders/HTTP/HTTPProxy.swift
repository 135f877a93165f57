import Foundation

/// Where an ``HTTPLoader``'s connections go. Explicit by default: libcurl on its own would read
/// `http_proxy`, `https_proxy`, `all_proxy` and `no_proxy` from the process environment, so a variable
/// set for some other tool would silently route (or un-route) every image download.
///
/// ```swift
/// configuration.proxy = .url(URL(string: "http://egress.internal:3128")!)
/// ```
///
/// With ``HTTPLoaderConfiguration/refusesPrivateAddresses`` on and a proxy in play (``url(_:)`` or
/// ``environment``), the loader resolves each target host itself, refuses it when any address is not
/// public, and pins the checked address: it asks the proxy for a tunnel (`CONNECT`) to that address
/// rather than to the name, so the proxy cannot resolve the name to something else. Redirects are
/// followed by the loader, hop by hop, with the same check. The proxy must therefore accept `CONNECT`
/// to the ports you fetch from (80 and 443 for most origins). The proxy itself is yours and is trusted:
/// its own address is not judged.
public enum HTTPProxy: Sendable, Hashable {
    /// Straight to the origin; proxy variables in the environment are ignored. The default.
    case direct
    /// Through the proxy at this URL (`http://host:port`; `https://` and `socks5h://` work too), for
    /// every host.
    case url(URL)
    /// Whatever the environment says, read by libcurl's rules: `http_proxy` for http URLs (lowercase
    /// only), `https_proxy` or `HTTPS_PROXY` for https ones, else `all_proxy` or `ALL_PROXY`; hosts
    /// listed in `no_proxy` or `NO_PROXY` are reached directly. The environment is the process's, read
    /// once as the loader starts, unless ``HTTPLoaderConfiguration/proxyEnvironment`` gives the variables.
    /// Opt in to it when the deployment configures egress that way.
    case environment
}
