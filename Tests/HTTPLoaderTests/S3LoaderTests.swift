import Foundation
import LoopbackHTTPServer
import Synchronization
import Testing
import WebImageCore
import WebImageHTTPLoader
import WebImageTestSupport

/// `s3://` sources: the URL mapping, the signature on every request, and the S3 protocol against moto's
/// S3-compatible server on loopback.
@Suite(.timeLimit(.minutes(5)))
struct S3LoaderTests {
    static let signature = AWSSignature(
        accessKeyID: "AKIDTEST", secretAccessKey: "secret", sessionToken: "token-1",
        region: "eu-west-3")

    @Test func objectURLsArePathStyleOnTheEndpointOrAWSs() throws {
        var configuration = S3LoaderConfiguration(
            signature: Self.signature, endpoint: URL(string: "http://127.0.0.1:9000/base/"))
        #expect(
            configuration.objectURL(for: URL(string: "s3://photos/a/b c.jpg?versionId=v1")!)?.absoluteString
                == "http://127.0.0.1:9000/base/photos/a/b%20c.jpg?versionId=v1")
        configuration.usesPathStyle = false
        configuration.endpoint = nil
        #expect(
            configuration.objectURL(for: URL(string: "s3://photos/a.jpg")!)?.absoluteString
                == "https://photos.s3.eu-west-3.amazonaws.com/a.jpg")
        #expect(configuration.objectURL(for: URL(string: "s3://photos")!) == nil)
        #expect(configuration.objectURL(for: URL(string: "https://photos/a.jpg")!) == nil)
        let environment = AWSSignature.fromEnvironment([
            "AWS_ACCESS_KEY_ID": "k", "AWS_SECRET_ACCESS_KEY": "s",
            "AWS_DEFAULT_REGION": "ap-south-1",
        ])
        #expect(environment == AWSSignature(accessKeyID: "k", secretAccessKey: "s", region: "ap-south-1"))
        #expect(AWSSignature.fromEnvironment(["AWS_ACCESS_KEY_ID": "k"]) == nil)
    }

    /// libcurl signs with SigV4 for the configured region and service, over the payload hash and session
    /// token headers S3 wants.
    @Test func everyRequestIsSigned() async throws {
        let server = try LoopbackHTTPServer()
        defer { server.shutdown() }
        let seen = SeenHeaders()
        server.route(prefix: "/") { request, connection in
            seen.headers.withLock { $0 = request.headers }
            try connection.respond(
                headers: [("Content-Type", "image/x-portable-graymap")], body: [UInt8](PGMCoder.sample()))
        }
        var configuration = S3LoaderConfiguration(
            signature: Self.signature, endpoint: URL(string: "http://127.0.0.1:\(server.port)"))
        configuration.http.coders = ImageCodersManager(coders: [PGMCoder()])
        let loader = S3Loader(configuration: configuration)
        #expect(loader.canRequestImage(for: URL(string: "s3://bucket/key.pgm")!))
        let loaded = try await load(loader, URL(string: "s3://bucket/key.pgm")!)
        #expect(loaded.data == PGMCoder.sample())
        let headers = seen.headers.withLock { $0 }
        let authorization = try #require(headers["authorization"])
        #expect(authorization.hasPrefix("AWS4-HMAC-SHA256 Credential=AKIDTEST/"))
        #expect(authorization.contains("/eu-west-3/s3/aws4_request"))
        #expect(
            authorization.contains("x-amz-content-sha256") && authorization.contains("x-amz-date")
                && authorization.contains("x-amz-security-token"))
        #expect(authorization.range(of: "Signature=[0-9a-f]{64}", options: .regularExpression) != nil)
        #expect(headers["x-amz-content-sha256"] == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        #expect(headers["x-amz-security-token"] == "token-1")
    }

    @Test func objectsLoadFromAnS3CompatibleStore() async throws {
        let moto = try MotoServer()
        let versions = try moto.put(
            bucket: "photos", objects: ["cats/tom.pgm": PGMCoder.sample(width: 3)], versioned: true)
        var configuration = S3LoaderConfiguration(
            signature: AWSSignature(
                accessKeyID: "AKIDTEST", secretAccessKey: "secret",
                region: "us-east-1"),
            endpoint: moto.endpoint)
        configuration.http.coders = ImageCodersManager(coders: [PGMCoder()])
        let loader = S3Loader(configuration: configuration)
        #expect(try await load(loader, URL(string: "s3://photos/cats/tom.pgm")!).data == PGMCoder.sample(width: 3))
        let version = try #require(versions["cats/tom.pgm"])
        #expect(
            try await load(loader, URL(string: "s3://photos/cats/tom.pgm?versionId=\(version)")!).data
                == PGMCoder.sample(width: 3))
        // A missing key is S3's 404 (NoSuchKey), a typed error.
        let missing = await loadResult(loader, URL(string: "s3://photos/cats/none.pgm")!)
        #expect(throws: ImageError.invalidStatusCode(404)) { try missing.get() }
    }

    private func load(_ loader: S3Loader, _ url: URL) async throws -> LoadedImage {
        try await loadResult(loader, url).get()
    }

    private func loadResult(_ loader: S3Loader, _ url: URL) async -> Result<LoadedImage, ImageError> {
        await withCheckedContinuation { continuation in
            _ = loader.requestImage(with: url, options: [], context: ImageContext(), progress: nil) {
                continuation.resume(returning: $0)
            }
        }
    }
}

/// The headers of the last request a test server saw.
private final class SeenHeaders: Sendable {
    /// Guards the headers, written by the server's connection thread.
    let headers = Mutex<[String: String]>([:])
}
