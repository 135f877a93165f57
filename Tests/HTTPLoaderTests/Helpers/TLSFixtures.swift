import Foundation

/// A certificate world made fresh for this test run with the `openssl` command, in a temp directory:
/// a private root CA, server leaves it signs (one for 127.0.0.1 and localhost, one for another name),
/// a client certificate, and a second, unrelated CA. Nothing here is trusted by the system.
struct TLSFixtures: Sendable {
    let directory: URL
    /// The private root CA's certificate (PEM).
    var rootCA: URL { file("root-ca.pem") }
    /// An unrelated CA that signed nothing used here.
    var otherCA: URL { file("other-ca.pem") }
    /// A leaf for IP 127.0.0.1 and DNS localhost, followed by nothing (the root signs it directly).
    var serverCertificate: URL { file("server.pem") }
    var serverKey: URL { file("server.key") }
    /// A leaf from the same root for "images.example" only: valid, but not for 127.0.0.1.
    var wrongNameCertificate: URL { file("wrong-name.pem") }
    var wrongNameKey: URL { file("wrong-name.key") }
    /// A client certificate (extended key usage clientAuth) from the same root.
    var clientCertificate: URL { file("client.pem") }
    var clientKey: URL { file("client.key") }
    /// base64 SHA-256 of the server leaf's SubjectPublicKeyInfo, the form pinning takes.
    let serverKeyPin: String
    /// The same for the wrong-name leaf's key: a pin that does not match the server's.
    let otherKeyPin: String

    /// Generated once per test process; the directory is removed when the process exits.
    static let shared: Result<TLSFixtures, OpenSSLError> = Result { () throws(OpenSSLError) -> TLSFixtures in
        try TLSFixtures.generate()
    }

    struct OpenSSLError: Error, CustomStringConvertible { let description: String }

    func file(_ name: String) -> URL { directory.appendingPathComponent(name) }

    private static func generate() throws(OpenSSLError) -> TLSFixtures {
        let directory = runDirectory
        do { try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true) } catch {
            throw OpenSSLError(description: "cannot create \(directory.path): \(error)")
        }
        atexit { try? FileManager.default.removeItem(at: TLSFixtures.runDirectory) }
        let tool = OpenSSLTool(directory: directory)
        try tool.makeRootCA("root-ca", name: "SwiftWebImage Test Root CA")
        try tool.makeRootCA("other-ca", name: "SwiftWebImage Unrelated CA")
        try tool.makeLeaf(
            "server", name: "localhost", issuer: "root-ca",
            extensions: "subjectAltName=IP:127.0.0.1,DNS:localhost\nextendedKeyUsage=serverAuth")
        try tool.makeLeaf(
            "wrong-name", name: "images.example", issuer: "root-ca",
            extensions: "subjectAltName=DNS:images.example\nextendedKeyUsage=serverAuth")
        try tool.makeLeaf(
            "client", name: "SwiftWebImage Test Client", issuer: "root-ca",
            extensions: "extendedKeyUsage=clientAuth")
        return TLSFixtures(
            directory: directory, serverKeyPin: try tool.publicKeyPin("server"),
            otherKeyPin: try tool.publicKeyPin("wrong-name"))
    }

    /// This process's fixtures directory.
    private static let runDirectory = FileManager.default.temporaryDirectory
        .appendingPathComponent("webimage-tls-\(UUID().uuidString)")
}

/// Runs `openssl` in the fixtures directory.
private struct OpenSSLTool {
    let directory: URL
    /// Days the generated certificates are valid: the run, with margin for a slow machine.
    private static let validityDays = "2"

    func makeRootCA(_ base: String, name: String) throws(TLSFixtures.OpenSSLError) {
        try run([
            "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes",
            "-keyout", "\(base).key", "-out", "\(base).pem", "-days", Self.validityDays, "-subj", "/CN=\(name)",
            "-addext", "basicConstraints=critical,CA:TRUE", "-addext", "keyUsage=critical,keyCertSign,cRLSign",
        ])
    }

    func makeLeaf(_ base: String, name: String, issuer: String, extensions: String) throws(TLSFixtures.OpenSSLError) {
        try run([
            "req", "-new", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes",
            "-keyout", "\(base).key", "-out", "\(base).csr", "-subj", "/CN=\(name)",
        ])
        let extensionFile = directory.appendingPathComponent("\(base).ext")
        do { try Data("basicConstraints=CA:FALSE\n\(extensions)\n".utf8).write(to: extensionFile) } catch {
            throw .init(description: "cannot write \(extensionFile.path): \(error)")
        }
        try run([
            "x509", "-req", "-in", "\(base).csr", "-CA", "\(issuer).pem", "-CAkey", "\(issuer).key",
            "-set_serial", "\(Int.random(in: 1...Int(Int32.max)))", "-days", Self.validityDays,
            "-extfile", "\(base).ext", "-out", "\(base).pem",
        ])
    }

    /// base64 of the SHA-256 of the key's DER SubjectPublicKeyInfo.
    func publicKeyPin(_ base: String) throws(TLSFixtures.OpenSSLError) -> String {
        try run(["pkey", "-in", "\(base).key", "-pubout", "-outform", "DER", "-out", "\(base).spki"])
        try run(["dgst", "-sha256", "-binary", "-out", "\(base).pin", "\(base).spki"])
        guard let digest = try? Data(contentsOf: directory.appendingPathComponent("\(base).pin")), digest.count == 32
        else {
            throw .init(description: "openssl dgst wrote no SHA-256 digest for \(base)")
        }
        return digest.base64EncodedString()
    }

    private func run(_ arguments: [String]) throws(TLSFixtures.OpenSSLError) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["openssl"] + arguments
        process.currentDirectoryURL = directory
        let errors = Pipe()
        process.standardError = errors
        process.standardOutput = FileHandle.nullDevice
        do { try process.run() } catch { throw .init(description: "cannot run openssl: \(error)") }
        let message = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw .init(
                description:
                    "openssl \(arguments.joined(separator: " ")) failed: \(String(decoding: message, as: UTF8.self))")
        }
    }
}
