import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import Testing

@testable import ImageServer

/// The routes through Hummingbird's router test framework: no socket, no origin; what needs a real
/// connection (deadlines, limits, origins) is in the other suites.
@Suite struct RouterTests {
    static func server(_ configure: (inout ServerConfiguration) -> Void = { _ in }) throws -> ImageServer {
        var configuration = ServerConfiguration()
        configure(&configuration)
        var logger = Logger(label: "router-tests")
        logger.logLevel = .critical
        return try ImageServer(configuration: configuration, logger: logger)
    }

    @Test func healthAndMetricsAnswerGetAndHead() async throws {
        try await Self.server().application().test(.router) { client in
            try await client.execute(uri: "/health", method: .get) { response in
                #expect(response.status == .ok)
                #expect(String(decoding: response.body.readableBytesView, as: UTF8.self) == "ok\n")
            }
            try await client.execute(uri: "/health", method: .head) { #expect($0.status == .ok) }
            try await client.execute(uri: "/metrics", method: .get) { response in
                #expect(response.status == .ok)
                #expect(response.headers[.contentType] == "text/plain; version=0.0.4")
                #expect(
                    String(decoding: response.body.readableBytesView, as: UTF8.self).contains(
                        "webimage_server_queue_depth"))
            }
        }
    }

    @Test func otherMethodsAre405() async throws {
        try await Self.server().application().test(.router) { client in
            for method in [HTTPRequest.Method.post, .put, .delete] {
                try await client.execute(uri: "/health", method: method) { #expect($0.status == .methodNotAllowed) }
                try await client.execute(uri: "/insecure/plain/http://example.com/a.jpg", method: method) {
                    #expect($0.status == .methodNotAllowed)
                }
            }
        }
    }

    @Test func theDemoPageIsOffUnlessConfigured() async throws {
        try await Self.server().application().test(.router) { client in
            try await client.execute(uri: "/demo", method: .get) { #expect($0.status == .notFound) }
        }
        let demo = DemoConfiguration(
            sourceBaseURL: URL(string: "http://127.0.0.1:1/")!,
            samples: [DemoSample(fileName: "a.jpg", width: 4, height: 3, isAnimated: false)])
        try await Self.server { $0.demo = demo }.application().test(.router) { client in
            try await client.execute(uri: "/demo", method: .get) { response in
                #expect(response.status == .ok)
                #expect(String(decoding: response.body.readableBytesView, as: UTF8.self).contains("a.jpg"))
            }
        }
    }

    @Test func refusalsBeforeAnyFetch() async throws {
        try await Self.server { $0.signingKeys = [URLSigner.KeyPair(key: [1, 2, 3], salt: [4, 5])] }
            .application().test(.router) { client in
                // Not a processing URL, a wrong signature, and options that cannot be read.
                try await client.execute(uri: "/", method: .get) { #expect($0.status == .notFound) }
                let forged = "/" + String(repeating: "A", count: 43) + "/plain/http://example.com/a.jpg"
                try await client.execute(uri: forged, method: .get) { #expect($0.status == .forbidden) }
            }
        try await Self.server().application().test(.router) { client in
            try await client.execute(uri: "/insecure/rs:nonsense/plain/http://example.com/a.jpg", method: .get) {
                #expect($0.status == .notFound)
                #expect($0.headers[.cacheControl] == "no-cache")
            }
        }
    }
}

/// `IMGPROXY_ALLOW_ORIGIN`, `IMGPROXY_PATH_PREFIX` and `IMGPROXY_HEALTH_CHECK_PATH`.
@Suite struct RouterSettingsTests {
    @Test func corsHeadersAndPreflight() async throws {
        try await RouterTests.server { $0.allowOrigin = "https://app.example" }.application().test(.router) { client in
            try await client.execute(uri: "/health", method: .get, headers: [.origin: "https://app.example"]) {
                #expect($0.headers[.accessControlAllowOrigin] == "https://app.example")
            }
            try await client.execute(
                uri: "/insecure/rs:nonsense/plain/http://example.com/a.jpg", method: .get,
                headers: [.origin: "https://app.example"]
            ) { response in
                #expect(response.status == .notFound)
                #expect(response.headers[.accessControlAllowOrigin] == "https://app.example")
            }
            try await client.execute(
                uri: "/insecure/plain/http://example.com/a.jpg", method: .options,
                headers: [.origin: "https://app.example", .accessControlRequestMethod: "GET"]
            ) { response in
                #expect(response.status == .noContent)
                #expect(response.headers[.accessControlAllowMethods]?.contains("GET") == true)
            }
        }
        try await RouterTests.server().application().test(.router) { client in
            try await client.execute(uri: "/health", method: .get, headers: [.origin: "https://app.example"]) {
                #expect($0.headers[.accessControlAllowOrigin] == nil)
            }
        }
    }

    @Test func pathPrefixAndHealthCheckPath() async throws {
        let configuration = try ServerConfiguration(environment: [
            "IMGPROXY_PATH_PREFIX": "images/",
            "IMGPROXY_HEALTH_CHECK_PATH": "ping",
        ])
        #expect(configuration.pathPrefix == "/images")
        #expect(configuration.healthCheckPath == "/ping")
        try await RouterTests.server {
            $0.pathPrefix = "/images"; $0.healthCheckPath = "/ping"
        }.application().test(.router) { client in
            try await client.execute(uri: "/images/health", method: .get) { #expect($0.status == .ok) }
            try await client.execute(uri: "/images/ping", method: .get) { #expect($0.status == .ok) }
            // Processing URLs outside the prefix are not found; inside it they are read without it.
            try await client.execute(uri: "/insecure/rs:nonsense/plain/http://example.com/a.jpg", method: .get) {
                #expect($0.status == .notFound)
                #expect(String(decoding: $0.body.readableBytesView, as: UTF8.self).contains("outside /images"))
            }
            try await client.execute(uri: "/images/insecure/rs:nonsense/plain/http://example.com/a.jpg", method: .get) {
                #expect($0.status == .notFound)
                #expect(
                    String(decoding: $0.body.readableBytesView, as: UTF8.self).contains("invalid processing options"))
            }
        }
    }
}
