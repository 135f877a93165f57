import Foundation

/// Best-of-N wall time of `body`, in milliseconds (the minimum is the least disturbed by the other core's load).
func bestTime(runs: Int = 5, _ body: () throws -> Void) rethrows -> Double {
    var best = Double.infinity
    for _ in 0..<runs {
        let start = ContinuousClock.now
        try body()
        let d = ContinuousClock.now - start
        best = min(best, Double(d.components.seconds) * 1000 + Double(d.components.attoseconds) / 1e15)
    }
    return best
}

/// Peak resident memory of this process so far, in MB: VmHWM from /proc/self/status. (getrusage's
/// ru_maxrss would do, but Linux carries it across exec, so a child would inherit the parent's peak.)
func peakMemoryMB() -> Double {
    let status = (try? String(contentsOfFile: "/proc/self/status", encoding: .utf8)) ?? ""
    let line = status.split(separator: "\n").first { $0.hasPrefix("VmHWM:") } ?? ""
    let kilobytes = Double(line.split(separator: " ").dropFirst().first ?? "") ?? .nan
    return kilobytes / 1024
}

/// Runs this executable again with `arguments` and returns the peak memory the child reports: each
/// memory-sensitive case runs alone in a fresh process, so earlier cases cannot inflate it.
func peakMemoryOfChild(_ arguments: [String]) throws -> Double {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: CommandLine.arguments[0])
    process.arguments = arguments
    let pipe = Pipe()
    process.standardOutput = pipe
    try process.run()
    let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    process.waitUntilExit()
    return Double(output.trimmingCharacters(in: .whitespacesAndNewlines)) ?? .nan
}

/// Times `ours` and `raw` (best of `runs` each, the two alternating run by run so that a change in the
/// machine's load hits both alike) and prints a row with both and their ratio.
func compare(_ name: String, runs: Int = 5, ours: () throws -> Void, raw: () -> Void) rethrows {
    var a = Double.infinity, b = Double.infinity
    for _ in 0..<runs {
        a = min(a, try bestTime(runs: 1, ours))
        b = min(b, bestTime(runs: 1, raw))
    }
    print(row([name, String(format: "%.1f", a), String(format: "%.1f", b), String(format: "%.3f", a / b)]))
}

func row(_ cells: [String]) -> String {
    zip(cells, [34, 12, 12, 10]).map { $0.padding(toLength: max($1, $0.count), withPad: " ", startingAt: 0) }.joined(
        separator: " ")
}
