/// Wall time and CPU time of one run over a file set.
struct Measurement {
    let requests: Int
    let seconds: Double
    let cpuSeconds: Double

    var requestsPerSecond: Double { Double(requests) / seconds }
    var cpuMicrosecondsPerRequest: Double { cpuSeconds * 1_000_000 / Double(requests) }
}
