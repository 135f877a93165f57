import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A reply as the tests look at it.
struct HTTPReply: Sendable {
    var status: Int
    var headers: [String: String]
    var body: Data

    func header(_ name: String) -> String? {
        headers.first { $0.key.caseInsensitiveCompare(name) == .orderedSame }?.value
    }
}

/// GET requests with Foundation's URLSession (libcurl underneath), no client cache, no cookies.
enum HTTPClient {
    static let session: URLSession = {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        configuration.urlCache = nil
        configuration.timeoutIntervalForRequest = 120
        return URLSession(configuration: configuration)
    }()

    static func get(_ url: String, headers: [String: String] = [:]) async throws -> HTTPReply {
        var request = URLRequest(url: URL(string: url)!)
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        let (data, response) = try await session.data(for: request)
        let http = response as! HTTPURLResponse
        var fields: [String: String] = [:]
        for (name, value) in http.allHeaderFields { fields["\(name)"] = "\(value)" }
        return HTTPReply(status: http.statusCode, headers: fields, body: data)
    }
}
