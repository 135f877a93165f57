import Foundation

// libFuzzer's entry points. libFuzzer's own `main` calls `LLVMFuzzerInitialize` once, then
// `LLVMFuzzerTestOneInput` for every input it tries, on one thread.

/// The harness picked by `WEBIMAGE_FUZZ_HARNESS` in `LLVMFuzzerInitialize`. Written once before the first
/// input and only read afterwards, all on libFuzzer's one thread: hence `nonisolated(unsafe)`.
nonisolated(unsafe) private var selectedHarness: FuzzHarness?

@_cdecl("LLVMFuzzerInitialize")
public func fuzzerInitialize(
    _ argc: UnsafeMutablePointer<Int32>,
    _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>
) -> Int32 {
    // getenv rather than ProcessInfo: its dictionary lives until exit and LeakSanitizer would count it.
    func environment(_ name: String) -> String? { getenv(name).map { String(cString: $0) } }
    if let folder = environment("WEBIMAGE_FUZZ_WRITE_SEEDS") {
        // Not fuzzing: write the seeds made in code for every harness, then stop.
        do {
            try GeneratedSeeds.write(to: URL(fileURLWithPath: folder))
            exit(0)
        } catch {
            FileHandle.standardError.write(Data("cannot write seeds: \(error)\n".utf8))
            exit(1)
        }
    }
    guard let name = environment("WEBIMAGE_FUZZ_HARNESS"), let harness = FuzzHarness(rawValue: name) else {
        let names = FuzzHarness.allCases.map(\.rawValue).joined(separator: " ")
        FileHandle.standardError.write(Data("set WEBIMAGE_FUZZ_HARNESS to one of: \(names)\n".utf8))
        exit(2)
    }
    selectedHarness = harness
    return 0
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzerTestOneInput(_ bytes: UnsafePointer<UInt8>?, _ count: Int) -> Int32 {
    guard let harness = selectedHarness else { return 0 }
    let data = bytes.map { Data(bytes: $0, count: count) } ?? Data()
    let start = CPUTime.now()
    harness.run(data)
    CPUTime.check(since: start, harness: harness)
    return 0
}

/// CPU time spent on one input, which libFuzzer's `-timeout` (wall-clock time) cannot tell apart from
/// waiting for a core on a busy machine.
enum CPUTime {
    /// CPU seconds one input may take, AddressSanitizer included. Any real image this small decodes in a
    /// fraction of that; an input over it is a finding (work out of proportion to its size).
    static let limitSeconds = 5.0

    static func now() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }

    /// Aborts, so libFuzzer saves the input as a crash, when the input took more than the limit.
    static func check(since start: Double, harness: FuzzHarness) {
        let spent = now() - start
        guard spent > limitSeconds else { return }
        FileHandle.standardError.write(Data("\(harness.rawValue): one input took \(spent) CPU seconds\n".utf8))
        abort()
    }
}
