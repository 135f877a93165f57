/// The proxy settings of an environment, chosen by the rules libcurl applies to the process
/// environment, so that the loader hands libcurl explicit options and libcurl never reads the
/// environment itself (which also lets a configuration carry its own variables).
struct EnvironmentProxy: Sendable, Equatable {
    /// For http URLs: `http_proxy`. Never `HTTP_PROXY`, which CGI sets from a request's `Proxy:` header.
    let http: String?
    /// For https URLs: `https_proxy`, else `HTTPS_PROXY`.
    let https: String?
    /// For a scheme whose own variable is not set: `all_proxy`, else `ALL_PROXY`.
    let all: String?
    /// Hosts reached without the proxy (libcurl's `no_proxy` syntax): `no_proxy`, else `NO_PROXY`;
    /// empty when neither is set.
    let noProxy: String

    /// Reads `variables`; one set to the empty string counts as unset, as libcurl's `curl_getenv` has it.
    init(_ variables: [String: String]) {
        func value(_ name: String) -> String? { variables[name].flatMap { $0.isEmpty ? nil : $0 } }
        http = value("http_proxy")
        https = value("https_proxy") ?? value("HTTPS_PROXY")
        all = value("all_proxy") ?? value("ALL_PROXY")
        noProxy = value("no_proxy") ?? value("NO_PROXY") ?? ""
    }

    /// The proxy for URLs with `scheme` (lowercased), for `CURLOPT_PROXY`: empty for none.
    func proxy(forScheme scheme: String) -> String {
        (scheme == "https" ? https : http) ?? all ?? ""
    }

    /// Whether http and https URLs take different proxies: libcurl, which keeps a transfer's proxy on
    /// the redirects it follows, must then leave redirects to the loader, which picks each hop's anew.
    var differsByScheme: Bool { proxy(forScheme: "http") != proxy(forScheme: "https") }
}
