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
                #expect(String(decoding: response.body.readableBytesView, as: UTF8.self).contains("webimage_server_queue_depth"))
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
        let demo = DemoConfiguration(sourceBaseURL: URL(string: "http://127.0.0.1:1/")!,
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
