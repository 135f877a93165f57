import Foundation

// http-bench: our HTTP loader against URLSession, AsyncHTTPClient and `curl -Z`, fetching the same
// files from a local nginx at the same concurrency, in one run. Prints requests/s, CPU time per
// request (getrusage) and our ratios. Run from Benchmarks/: `swift run -c release http-bench`.
// Then the fairness case (FairnessCase.swift): nginx's latency at the server preset, alone and while
// another origin holds stalled and dripping URLs.

let repetitions = Int(ProcessInfo.processInfo.environment["HTTP_BENCH_RUNS"] ?? "") ?? 3
let environment = ProcessInfo.processInfo.environment
let concurrencies =
    environment["HTTP_BENCH_CONCURRENCY"].map { $0.split(separator: ",").compactMap { Int($0) } } ?? [6, 32]
/// Only the loader, for profiling: `HTTP_BENCH_LOADER_ONLY=1`.
let loaderOnly = environment["HTTP_BENCH_LOADER_ONLY"] != nil
/// Only the fairness case (`HTTP_BENCH_FAIRNESS_ONLY=1`), or everything but it (`HTTP_BENCH_NO_FAIRNESS=1`).
let fairnessOnly = environment["HTTP_BENCH_FAIRNESS_ONLY"] != nil
let skipsFairness = environment["HTTP_BENCH_NO_FAIRNESS"] != nil

let work = FileManager.default.temporaryDirectory.appendingPathComponent("http-bench-\(UUID().uuidString)")
let root = work.appendingPathComponent("www")
try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
defer { try? FileManager.default.removeItem(at: work) }

let fixtures = try Fixtures(root: root)
let nginx = try Nginx(root: root, workDirectory: work)
defer { nginx.stop() }
print(
    "nginx on 127.0.0.1:\(nginx.port); \(repetitions) measured rounds after a warm-up round, clients interleaved; fastest round reported"
)
print("")
print("| files | conc. | client | req/s | CPU µs/req |")
print("|---|---:|---|---:|---:|")

func row(_ set: Fixtures.FileSet, _ concurrency: String, _ name: String, _ m: Measurement) {
    print(
        "| \(set.name) | \(concurrency) | \(name) | \(String(format: "%.0f", m.requestsPerSecond)) | \(String(format: "%.0f", m.cpuMicrosecondsPerRequest)) |"
    )
}

/// One table section: a transport (plain HTTP/1.1, or HTTPS with HTTP/2) at one concurrency.
struct Section {
    let secure: Bool
    let concurrency: Int
    var label: String { secure ? "\(concurrency), https h2" : "\(concurrency)" }
}

// Plain HTTP/1.1 at every concurrency, then HTTPS + HTTP/2 at the highest (URLSession is left out
// there: FoundationNetworking on Linux cannot be told to accept a self-signed certificate).
var sections = fairnessOnly ? [] : concurrencies.map { Section(secure: false, concurrency: $0) }
if !fairnessOnly, environment["HTTP_BENCH_NO_TLS"] == nil, let highest = concurrencies.max() {
    sections.append(Section(secure: true, concurrency: highest))
}

var summary: [String] = []
for section in sections {
    let concurrency = section.concurrency
    let secure = section.secure
    let clients: [any BenchClient] =
        loaderOnly
        ? [LoaderClient(concurrency: concurrency, insecure: secure)]
        : secure
            ? [
                LoaderClient(concurrency: concurrency, insecure: true),
                AsyncHTTPClientClient(concurrency: concurrency, insecure: true),
            ]
            : [
                LoaderClient(concurrency: concurrency),
                URLSessionClient(concurrency: concurrency),
                AsyncHTTPClientClient(concurrency: concurrency),
            ]
    for set in [fixtures.small, fixtures.large]
    where environment["HTTP_BENCH_SET"].map({ set.name.contains($0) }) ?? true {
        let base = secure ? "https://127.0.0.1:\(nginx.tlsPort)" : "http://127.0.0.1:\(nginx.port)"
        let urls = set.paths.map { URL(string: base + $0)! }
        // Every client (and curl) runs once per round, round after round, so all of them meet the same
        // background load; each one's fastest round is reported. Round 0 is a warm-up.
        var runners: [(name: String, run: () async throws -> Measurement)] = clients.map { client in
            (client.name, { try await run(client, urls: urls, expectedSize: set.fileSize, concurrency: concurrency) })
        }
        if !loaderOnly {
            runners.append(
                (
                    "curl -Z (ceiling)",
                    { try CurlCeiling(workDirectory: work).run(urls: urls, concurrency: concurrency) }
                ))
        }
        var results: [String: Measurement] = [:]
        for round in 0...repetitions {
            for runner in runners {
                let measurement = try await runner.run()
                guard round > 0 else { continue }
                if let fastest = results[runner.name], fastest.seconds <= measurement.seconds { continue }
                results[runner.name] = measurement
            }
        }
        for runner in runners { row(set, section.label, runner.name, results[runner.name]!) }
        if loaderOnly { continue }
        let curl = results["curl -Z (ceiling)"]!
        let ours = results["WebImageHTTPLoader"]!
        let peers = results.filter { $0.key != "WebImageHTTPLoader" && $0.key != "curl -Z (ceiling)" }
        let bestPeer = peers.max { $0.value.requestsPerSecond < $1.value.requestsPerSecond }!
        summary.append(
            String(
                format:
                    "%@, concurrency %@: ours / best Swift peer (%@) = %.2f req/s, %.2f CPU/req; ours / curl = %.2f req/s, %.2f CPU/req",
                set.name, section.label, bestPeer.key,
                ours.requestsPerSecond / bestPeer.value.requestsPerSecond,
                ours.cpuMicrosecondsPerRequest / bestPeer.value.cpuMicrosecondsPerRequest,
                ours.requestsPerSecond / curl.requestsPerSecond,
                ours.cpuMicrosecondsPerRequest / curl.cpuMicrosecondsPerRequest))
    }
    for client in clients { try await client.shutdown() }
}
print("")
for line in summary { print(line) }
if !fairnessOnly, environment["HTTP_BENCH_NO_TLS"] == nil {
    let urls = fixtures.small.paths.prefix(200).map { URL(string: "https://127.0.0.1:\(nginx.tlsPort)\($0)")! }
    print("")
    print(
        "Our loader over HTTPS, from its transfer metrics: "
            + (try await describeConnections(urls: Array(urls), concurrency: 32)))
}
if !skipsFairness {
    let slow = try SlowOrigin()
    defer { slow.stop() }
    let healthy = fixtures.small.paths.map { URL(string: "http://127.0.0.1:\(nginx.port)\($0)")! }
    try await FairnessCase.run(healthy: healthy, slow: slow)
}
