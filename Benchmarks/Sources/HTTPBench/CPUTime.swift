import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// CPU seconds (user + system) used so far by this process (`RUSAGE_SELF`) or by its waited-for
/// children (`RUSAGE_CHILDREN`).
func cpuSeconds(_ who: __rusage_who) -> Double {
    var usage = rusage()
    getrusage(__rusage_who_t(who.rawValue), &usage)
    func seconds(_ time: timeval) -> Double { Double(time.tv_sec) + Double(time.tv_usec) / 1_000_000 }
    return seconds(usage.ru_utime) + seconds(usage.ru_stime)
}
