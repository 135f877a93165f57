import Foundation
import LoopbackHTTPServer
import Synchronization
import Testing
import WebImageCore
import WebImageHTTPLoader

/// HTTPS against servers with a certificate chain made for this run: trust (system, file, memory),
/// host names, pinning, client certificates, and HTTP/2 negotiated over TLS.
@Suite(.timeLimit(.minutes(2)))
struct TLSTests {
    let server: LoopbackHTTPServer
    let fixtures: TLSFixtures

    init() throws {
        server = try FaultServer.make()
        fixtures = try TLSFixtures.shared.get()
    }

    private func front(wrongName: Bool = false, requireClientCertificate: Bool = false) throws -> TLSFront {
        try TLSFront(
            backend: server,
            chain: wrongName ? fixtures.wrongNameCertificate : fixtures.serverCertificate,
            key: wrongName ? fixtures.wrongNameKey : fixtures.serverKey,
            clientCA: requireClientCertificate ? fixtures.rootCA : nil)
    }

    private func pem(_ url: URL) throws -> Data { try Data(contentsOf: url) }

    // MARK: Trust

    @Test func verificationIsOnByDefaultAndRefusesAPrivateCA() async throws {
        let https = try front()
        let error = failure(await load(makeLoader(), https.url("/ok.pgm")))
        guard case .tls(.untrustedCertificate(let verifyResult)) = error?.httpLoaderFailure else {
            Issue.record("expected an untrusted certificate, got \(String(describing: error))"); return
        }
        #expect(verifyResult != 0)
        #expect(server.requestCount(for: "/ok.pgm") == 0, "no request may reach an unverified server")
    }

    @Test func aPrivateCAInABundleFileIsTrustedWhenConfigured() async throws {
        let https = try front()
        let loader = makeLoader { $0.tls.caBundlePath = fixtures.rootCA.path }
        #expect(try await load(loader, https.url("/ok.pgm")).get().data == Data(FaultServer.image))
    }

    @Test(arguments: [false, true])
    func httpsGoesThroughAProxyTunnelWithVerificationOn(guardOn: Bool) async throws {
        let https = try front()
        let proxy = try ForwardProxy()
        let loader = makeLoader {
            $0.tls.caBundlePath = fixtures.rootCA.path
            $0.proxy = .url(proxy.url)
            if guardOn {
                // The guard judges the target (loopback stands in for an allowed intranet origin here).
                $0.refusesPrivateAddresses = true
                $0.allowedPrivateAddresses = ["127.0.0.1"]
            }
        }
        #expect(try await load(loader, https.url("/ok.pgm")).get().data == Data(FaultServer.image))
        #expect(proxy.requestLines == ["CONNECT 127.0.0.1:\(https.port) HTTP/1.1"])
        // The certificate is still checked end to end through the tunnel.
        let wrong = try front(wrongName: true)
        guard case .tls = failure(await load(loader, wrong.url("/ok.pgm")))?.httpLoaderFailure else {
            Issue.record("a wrong host name behind the proxy must fail TLS"); return
        }
    }

    @Test func aPrivateCAInADirectoryIsTrustedWhenConfigured() async throws {
        let https = try front()
        // A CA directory holds certificates under their subject hash, as `openssl rehash` names them.
        let directory = fixtures.file("ca-directory-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        try FileManager.default.copyItem(at: fixtures.rootCA, to: directory.appendingPathComponent("root.pem"))
        let rehash = Process()
        rehash.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        rehash.arguments = ["openssl", "rehash", directory.path]
        try rehash.run()
        rehash.waitUntilExit()
        let loader = makeLoader { $0.tls.caDirectoryPath = directory.path }
        #expect(try await load(loader, https.url("/ok.pgm")).get().data == Data(FaultServer.image))
    }

    @Test func aPrivateCAInMemoryIsTrustedWhenConfigured() async throws {
        let https = try front()
        let rootPEM = try pem(fixtures.rootCA)
        let loader = makeLoader { $0.tls.trustedCertificatesPEM = rootPEM }
        #expect(try await load(loader, https.url("/ok.pgm")).get().data == Data(FaultServer.image))
    }

    @Test func trustingOnlyGivenCAsRefusesServersTheyDidNotSign() async throws {
        let https = try front()
        let otherPEM = try pem(fixtures.otherCA)
        let loader = makeLoader {
            $0.tls.trustedCertificatesPEM = otherPEM
            $0.tls.trustsSystemCertificates = false
        }
        let error = failure(await load(loader, https.url("/ok.pgm")))
        guard case .tls(.untrustedCertificate) = error?.httpLoaderFailure else {
            Issue.record("expected an untrusted certificate, got \(String(describing: error))"); return
        }
    }

    @Test func aCertificateForAnotherHostNameIsRefused() async throws {
        let https = try front(wrongName: true)
        let loader = makeLoader { $0.tls.caBundlePath = fixtures.rootCA.path }
        let error = failure(await load(loader, https.url("/ok.pgm")))
        guard case .tls(.hostnameMismatch) = error?.httpLoaderFailure else {
            Issue.record("expected a host name mismatch, got \(String(describing: error))"); return
        }
        #expect(server.requestCount(for: "/ok.pgm") == 0)
    }

    @Test func allowInvalidSSLCertificatesIsTheOnlyWayPastVerification() async throws {
        let https = try front(wrongName: true)
        let result = await load(makeLoader(), https.url("/ok.pgm"), options: .allowInvalidSSLCertificates)
        #expect(try result.get().data == Data(FaultServer.image))
    }

    @Test func aLocalCABundleThatDoesNotExistIsALocalConfigurationError() async throws {
        let https = try front()
        let loader = makeLoader { $0.tls.caBundlePath = fixtures.file("missing.pem").path }
        let error = failure(await load(loader, https.url("/ok.pgm")))
        guard case .tls(.localConfiguration) = error?.httpLoaderFailure else {
            Issue.record("expected a local configuration error, got \(String(describing: error))"); return
        }
    }

    // MARK: Pinning

    @Test func aPinnedKeyThatMatchesIsAccepted() async throws {
        let https = try front()
        let loader = makeLoader {
            $0.tls.caBundlePath = fixtures.rootCA.path
            $0.tls.pinnedPublicKeySHA256 = [fixtures.otherKeyPin, fixtures.serverKeyPin]
        }
        #expect(try await load(loader, https.url("/ok.pgm")).get().data == Data(FaultServer.image))
    }

    @Test func aPinnedKeyThatDoesNotMatchIsRefusedEvenWithoutVerification() async throws {
        let https = try front()
        let loader = makeLoader {
            $0.tls.caBundlePath = fixtures.rootCA.path
            $0.tls.pinnedPublicKeySHA256 = [fixtures.otherKeyPin]
        }
        for options in [ImageOptions(), .allowInvalidSSLCertificates] {
            let error = failure(await load(loader, https.url("/ok.pgm"), options: options))
            guard case .tls(.pinnedKeyMismatch) = error?.httpLoaderFailure else {
                Issue.record("expected a pin mismatch with \(options), got \(String(describing: error))"); return
            }
        }
        #expect(server.requestCount(for: "/ok.pgm") == 0)
    }

    // MARK: Client certificates

    @Test func aServerThatRequiresAClientCertificateRefusesALoaderWithout() async throws {
        let https = try front(requireClientCertificate: true)
        let loader = makeLoader { $0.tls.caBundlePath = fixtures.rootCA.path }
        let error = failure(await load(loader, https.url("/ok.pgm")))
        // Over TLS 1.3 the client finishes its side of the handshake before the server refuses, so the
        // refusal reaches libcurl as an alert on the first read (a failed handshake) or, when the
        // server's close wins the race, as a send failure on a dead connection.
        switch error?.httpLoaderFailure {
        case .tls(.handshakeFailed), .network: break
        default: Issue.record("expected a failed handshake, got \(String(describing: error))")
        }
        #expect(https.waitForHandshakes(1))
        #expect(https.handshakesFailed >= 1, "the server refused the handshake")
        #expect(https.handshakesCompleted == 0)
        #expect(server.requestCount(for: "/ok.pgm") == 0)
    }

    @Test func aClientCertificateFromFilesIsPresented() async throws {
        let https = try front(requireClientCertificate: true)
        let loader = makeLoader {
            $0.tls.caBundlePath = fixtures.rootCA.path
            $0.tls.clientCertificate = HTTPClientCertificate(
                certificate: .file(path: fixtures.clientCertificate.path),
                privateKey: .file(path: fixtures.clientKey.path))
        }
        #expect(try await load(loader, https.url("/ok.pgm")).get().data == Data(FaultServer.image))
    }

    @Test func aClientCertificateFromMemoryIsPresented() async throws {
        let https = try front(requireClientCertificate: true)
        let certificate = try pem(fixtures.clientCertificate)
        let key = try pem(fixtures.clientKey)
        let loader = makeLoader {
            $0.tls.caBundlePath = fixtures.rootCA.path
            $0.tls.clientCertificate = HTTPClientCertificate(certificate: .pem(certificate), privateKey: .pem(key))
        }
        #expect(try await load(loader, https.url("/ok.pgm")).get().data == Data(FaultServer.image))
    }

    // MARK: HTTP versions

    @Test func http11OverTLSReportsItsVersionAndHandshake() async throws {
        let https = try front()
        let loader = makeLoader { $0.tls.caBundlePath = fixtures.rootCA.path }
        let (result, metrics) = await loadWithMetrics(loader, https.url("/ok.pgm"))
        #expect(try result.get().data == Data(FaultServer.image))
        #expect(metrics?.httpVersion == "1.1")
        #expect((metrics?.tlsHandshake ?? .zero) > .zero)
    }

    @Test func http2IsNegotiatedOverTLS() async throws {
        let root = fixtures.file("h2-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: root) }
        try Data(FaultServer.image).write(to: root.appendingPathComponent("ok.pgm"))
        let h2 = try NGHTTPServer(documentRoot: root, certificate: fixtures.serverCertificate, key: fixtures.serverKey)
        let loader = makeLoader { $0.tls.caBundlePath = fixtures.rootCA.path }
        let (result, metrics) = await loadWithMetrics(loader, h2.url("/ok.pgm"))
        #expect(try result.get().data == Data(FaultServer.image))
        #expect(metrics?.httpVersion == "2")
        let (second, secondMetrics) = await loadWithMetrics(loader, h2.url("/ok.pgm?again"))
        #expect(try second.get().data == Data(FaultServer.image))
        #expect(secondMetrics?.reusedConnection == true, "the second request rides the HTTP/2 connection")
    }
}

/// Loads `url` and returns the result with the transfer's metrics.
func loadWithMetrics(
    _ loader: HTTPLoader, _ url: URL, options: ImageOptions = []
)
    async -> (Result<LoadedImage, ImageError>, HTTPTransferMetrics?)
{
    let token = Locked<HTTPDownloadToken?>(nil)
    let result: Result<LoadedImage, ImageError> = await withCheckedContinuation { continuation in
        let started = loader.download(url, options: options) { continuation.resume(returning: $0) }
        token.withLock { $0 = try? started.get() }
    }
    return (result, token.withLock { $0?.metrics })
}
