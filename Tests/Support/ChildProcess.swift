import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Child processes a test or benchmark starts (redis-server, nginx, taskset), with what Foundation's
/// `Process` does not give: every signal unblocked and at its default action (`Process` passes on the
/// calling thread's signal mask, in which a test thread has SIGTERM blocked, so the child would never
/// stop), and standard streams that cannot hold the test runner's pipes open.
public enum ChildProcess {
    /// What ``spawn(_:_:standardOutput:)`` throws when the child cannot be started.
    public struct SpawnFailed: Error, CustomStringConvertible {
        /// The executable's path.
        public let path: String
        /// `posix_spawn`'s error number.
        public let code: Int32

        public var description: String { "cannot start \(path): \(String(cString: strerror(code)))" }
    }

    /// Starts `path` with `arguments`, standard input and error on /dev/null and standard output on
    /// `standardOutput` (a descriptor the caller owns) or /dev/null: a server that outlived a crashed test
    /// process must not hold the runner's output pipe open, or `swift test` would wait for it forever.
    /// The caller waits for the child (``wait(_:)``).
    public static func spawn(_ path: String, _ arguments: [String], standardOutput: Int32? = nil) throws -> pid_t {
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var empty = sigset_t()
        sigemptyset(&empty)
        var all = sigset_t()
        sigfillset(&all)
        posix_spawnattr_setsigmask(&attributes, &empty)
        posix_spawnattr_setsigdefault(&attributes, &all)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        // The C strings are owned here: duplicated for the call, freed after it.
        let argv: [UnsafeMutablePointer<CChar>?] = ([path] + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var files = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&files)
        defer { posix_spawn_file_actions_destroy(&files) }
        posix_spawn_file_actions_addopen(&files, 0, "/dev/null", O_RDONLY, 0)
        if let standardOutput {
            posix_spawn_file_actions_adddup2(&files, standardOutput, 1)
        } else {
            posix_spawn_file_actions_addopen(&files, 1, "/dev/null", O_WRONLY, 0)
        }
        posix_spawn_file_actions_addopen(&files, 2, "/dev/null", O_WRONLY, 0)
        var pid: pid_t = 0
        let result = posix_spawn(&pid, path, &files, &attributes, argv, environ)
        guard result == 0 else { throw SpawnFailed(path: path, code: result) }
        return pid
    }

    /// Waits until `pid` has exited and returns its wait status.
    @discardableResult
    public static func wait(_ pid: pid_t) -> Int32 {
        var status: Int32 = 0
        while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
        return status
    }

    /// Runs `path` to completion and returns what it printed on standard output.
    public static func output(of path: String, _ arguments: [String]) throws -> String {
        var pipeEnds: [Int32] = [0, 0]
        guard pipe(&pipeEnds) == 0 else { throw SpawnFailed(path: path, code: errno) }
        let pid: pid_t
        do {
            pid = try spawn(path, arguments, standardOutput: pipeEnds[1])
        } catch {
            close(pipeEnds[0])
            close(pipeEnds[1])
            throw error
        }
        close(pipeEnds[1])
        let text = FileHandle(fileDescriptor: pipeEnds[0], closeOnDealloc: true).readDataToEndOfFile()
        wait(pid)
        return String(decoding: text, as: UTF8.self)
    }
}
