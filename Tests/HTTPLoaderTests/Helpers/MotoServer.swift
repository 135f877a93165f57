import Foundation
import LoopbackHTTPServer
import WebImageTestSupport

#if canImport(Glibc)
import Glibc
#endif

/// moto's S3-compatible server (PyPI's `moto[server]`) on a loopback port, in a virtual environment this
/// helper makes under `.build/test-tools/moto` the first time (pip needs PyPI once). moto speaks S3's REST
/// protocol (path-style buckets and keys, `versionId`, 404 NoSuchKey) but checks no signature unless
/// told to: what it proves is the protocol, not the signing, which the signing test checks on its own.
final class MotoServer: Sendable {
    /// moto's version, pinned so the protocol it speaks stays the same run to run.
    static let version = "5.2.5"

    let port: Int
    private let process: Process

    var endpoint: URL { URL(string: "http://127.0.0.1:\(port)")! }

    init() throws {
        let python = try Self.environment()
        port = Int(try LoopbackSocket.freePort())
        process = Process()
        process.executableURL = URL(fileURLWithPath: python + "/bin/moto_server")
        process.arguments = ["-H", "127.0.0.1", "-p", String(port)]
        let log = FileHandle(forWritingAtPath: "/dev/null")
        process.standardOutput = log
        process.standardError = log
        try process.run()
        // Polls with a long bound: moto's start-up imports take seconds on a loaded machine.
        let deadline = Date().addingTimeInterval(60)
        while !LoopbackSocket.accepts(UInt16(port)) {
            guard Date() < deadline, process.isRunning else {
                kill(process.processIdentifier, SIGKILL)
                throw MotoFailure(description: "moto_server did not answer on port \(port)")
            }
            Thread.sleep(forTimeInterval: 0.1)
        }
    }

    deinit {
        // moto's server (werkzeug) does not end on SIGTERM: kill it.
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }

    /// Creates `bucket` (with versioning when asked) and puts `objects` in it, with boto3 (moto's own
    /// dependency); returns each key's version ID when versioned.
    @discardableResult
    func put(bucket: String, objects: [String: Data], versioned: Bool = false) throws -> [String: String] {
        let directory = try TemporaryDirectory(prefix: "moto-objects")
        var lines = [
            "import boto3, json, sys",
            "s3 = boto3.client('s3', endpoint_url='\(endpoint.absoluteString)', region_name='us-east-1',"
                + " aws_access_key_id='AKIDTEST', aws_secret_access_key='secret')",
            "s3.create_bucket(Bucket='\(bucket)')",
        ]
        if versioned {
            lines.append("s3.put_bucket_versioning(Bucket='\(bucket)', VersioningConfiguration={'Status': 'Enabled'})")
        }
        lines.append("versions = {}")
        for (index, (key, data)) in objects.enumerated() {
            let file = try directory.write(data, to: "object-\(index)")
            lines.append("r = s3.put_object(Bucket='\(bucket)', Key='\(key)', Body=open('\(file.path)', 'rb').read())")
            lines.append("versions['\(key)'] = r.get('VersionId') or ''")
        }
        lines.append("print(json.dumps(versions))")
        let script = try directory.write(Data(lines.joined(separator: "\n").utf8), to: "put.py")
        let output = try Self.run(try Self.environment() + "/bin/python", [script.path])
        let json = output.split(separator: "\n").last.map(String.init) ?? "{}"
        return (try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: String]) ?? [:]
    }

    /// The virtual environment's path, made (and moto installed) when missing.
    private static func environment() throws -> String {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent()
        let venv = root.appendingPathComponent(".build/test-tools/moto-\(version)").path
        if FileManager.default.isExecutableFile(atPath: venv + "/bin/moto_server") { return venv }
        try run("/usr/bin/python3", ["-m", "venv", venv])
        try run(venv + "/bin/python", ["-m", "pip", "install", "-q", "moto[server]==\(version)"])
        return venv
    }

    /// Runs `executable` and waits; its output, or a failure with it when it exits non-zero.
    @discardableResult
    private static func run(_ executable: String, _ arguments: [String]) throws -> String {
        // Output to a file, not a pipe: a process another test starts meanwhile (an HTTP/2 server, say)
        // inherits a pipe's write end and would hold its EOF back for as long as it runs.
        let directory = try TemporaryDirectory(prefix: "moto-run")
        let file = directory.file("output.txt")
        _ = FileManager.default.createFile(atPath: file.path, contents: nil)
        let output = try FileHandle(forWritingTo: file)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.standardOutput = output
        process.standardError = output
        try process.run()
        process.waitUntilExit()
        try output.close()
        let text = String(decoding: try Data(contentsOf: file), as: UTF8.self)
        guard process.terminationStatus == 0 else {
            throw MotoFailure(description: "\(executable) \(arguments.joined(separator: " ")): \(text)")
        }
        return text
    }
}

/// moto could not be set up or started, with what it printed.
struct MotoFailure: Error, CustomStringConvertible {
    let description: String
}
