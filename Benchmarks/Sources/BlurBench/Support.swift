import Foundation

/// One timed case: wall-clock time and the processor time of all the process's threads, in milliseconds.
struct Measure {
    var wall: Double
    var cpu: Double
}

/// Timing. The machine is shared, so both the best wall-clock time and the best processor time are kept:
/// processor time counts the work whatever else runs, wall-clock time shows what the threads bought.
enum Timing {
    /// The best of `runs` calls of `body` (after one untimed warm-up call).
    static func best(_ runs: Int, _ body: () -> Void) -> Measure {
        body()
        var best = Measure(wall: .infinity, cpu: .infinity)
        for _ in 0..<runs {
            let start = DispatchTime.now().uptimeNanoseconds, cpuStart = processorTime()
            body()
            best.wall = min(best.wall, Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6)
            best.cpu = min(best.cpu, processorTime() - cpuStart)
        }
        return best
    }

    /// Processor time this process has used so far, all threads, in milliseconds.
    static func processorTime() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &time)
        return Double(time.tv_sec) * 1e3 + Double(time.tv_nsec) / 1e6
    }

    /// Processor time used by finished child processes so far, in milliseconds.
    static func childrenProcessorTime() -> Double {
        var usage = rusage()
        getrusage(__rusage_who_t(RUSAGE_CHILDREN.rawValue), &usage)
        func ms(_ t: timeval) -> Double { Double(t.tv_sec) * 1e3 + Double(t.tv_usec) / 1e3 }
        return ms(usage.ru_utime) + ms(usage.ru_stime)
    }
}

/// The peers: scripts/bench/blur-peer.py run by the given Python, and the vips command.
enum Peer {
    static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("scripts/bench/blur-peer.py")
        .path

    /// What the peer script prints for `arguments`, or nil (with the reason on stderr) when it fails.
    static func output(_ python: String, _ arguments: [String]) -> String? {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: python)
        process.arguments = [script] + arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        do { try process.run() } catch {
            FileHandle.standardError.write(Data("cannot run \(python): \(error)\n".utf8))
            return nil
        }
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { return nil }
        return String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// The peer's best times for one of its timed cases (it prints "wall cpu" in milliseconds).
    static func measure(_ python: String, _ arguments: [String]) -> Measure? {
        guard let fields = output(python, arguments)?.split(separator: " "), fields.count == 2,
            let wall = Double(fields[0]), let cpu = Double(fields[1])
        else { return nil }
        return Measure(wall: wall, cpu: cpu)
    }

    /// The best of `runs` runs of a command (after one warm-up run), its processor time read from the
    /// finished children's usage.
    static func measureCommand(_ runs: Int, _ executable: String, _ arguments: [String]) -> Measure {
        _ = run(executable, arguments)
        var best = Measure(wall: .infinity, cpu: .infinity)
        for _ in 0..<runs {
            let start = DispatchTime.now().uptimeNanoseconds, cpuStart = Timing.childrenProcessorTime()
            _ = run(executable, arguments)
            best.wall = min(best.wall, Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6)
            best.cpu = min(best.cpu, Timing.childrenProcessorTime() - cpuStart)
        }
        return best
    }

    /// Runs a command quietly; true when it exits with 0.
    static func run(_ executable: String, _ arguments: [String]) -> Bool {
        guard FileManager.default.isExecutableFile(atPath: executable) else { return false }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.standardOutput = FileHandle.nullDevice
        do { try process.run() } catch { return false }
        process.waitUntilExit()
        return process.terminationStatus == 0
    }
}

/// The printed table.
enum Table {
    static let widths = [40, 9, 9, 6, 9, 9, 6, 30]

    static func row(_ cells: [String]) -> String {
        zip(cells, widths).map { cell, width in
            cell.padding(toLength: max(width, cell.count), withPad: " ", startingAt: 0)
        }
        .joined(separator: " ")
    }

    static func compare(_ name: String, ours: Measure, peer: Measure?, peerName: String) {
        func text(_ value: Double?) -> String { value.map { String(format: "%.1f", $0) } ?? "-" }
        func ratio(_ a: Double, _ b: Double?) -> String { b.map { String(format: "%.2f", a / $0) } ?? "-" }
        print(
            row([
                name, text(ours.wall), text(peer?.wall), ratio(ours.wall, peer?.wall),
                text(ours.cpu), text(peer?.cpu), ratio(ours.cpu, peer?.cpu), peer == nil ? "(no peer)" : peerName,
            ]))
    }
}
