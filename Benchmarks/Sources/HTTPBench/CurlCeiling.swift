import Foundation

/// The `curl` command's own parallel mode over the same URLs: the ceiling for a libcurl-based client.
struct CurlCeiling {
    let workDirectory: URL

    func run(urls: [URL], concurrency: Int) throws -> Measurement {
        // One config file: each URL and where its body goes.
        let list = urls.map { "url = \"\($0.absoluteString)\"\noutput = \"/dev/null\"" }.joined(separator: "\n")
        let listURL = workDirectory.appendingPathComponent("curl-\(concurrency)-\(urls.count).txt")
        try list.write(to: listURL, atomically: true, encoding: .utf8)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/curl")
        // --parallel-immediate: open connections at once instead of waiting to multiplex (plain HTTP/1.1).
        // Over https: --insecure for the self-signed certificate, and no --parallel-immediate so curl
        // multiplexes HTTP/2 streams on one connection as it does by default.
        let secure = urls.first?.scheme == "https"
        process.arguments =
            ["--silent", "--fail", "--parallel", "--parallel-max", "\(concurrency)", "--config", listURL.path]
            + (secure ? ["--insecure", "--http2"] : ["--parallel-immediate"])
        // curl draws a parallel progress meter on stderr even with --silent; nobody reads it.
        process.standardError = FileHandle.nullDevice
        let cpuBefore = cpuSeconds(RUSAGE_CHILDREN)
        let start = ContinuousClock.now
        try process.run()
        process.waitUntilExit()
        let elapsed = ContinuousClock.now - start
        guard process.terminationStatus == 0 else {
            throw BenchFailure(description: "curl exited with \(process.terminationStatus)")
        }
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        return Measurement(requests: urls.count, seconds: seconds, cpuSeconds: cpuSeconds(RUSAGE_CHILDREN) - cpuBefore)
    }
}
