import Foundation
import Glibc
import LoopbackHTTPServer
import WebImageTestSupport

/// A loopback TCP server for one connection that answers each request it receives with the next answer's
/// pieces, sent one `send` at a time with a short pause between them, so the client's receives see them
/// apart (the client's results must not depend on whether they do). Closes after the last answer, or with
/// `holdOpen` keeps the connection open, unanswered, until the client closes its side (bounded by a minute,
/// so a test that never closes cannot keep the thread forever).
final class SteppedRedisServer: Sendable {
    let port: Int
    private let listener: Int32

    init(answers: [[Data]], holdOpen: Bool = false) throws {
        let (listener, port) = try LoopbackSocket.listening(backlog: 4)
        self.port = Int(port)
        self.listener = listener
        Thread {
            let client = accept(listener, nil, nil)
            guard client >= 0 else { return }
            defer { close(client) }
            var buffer = [UInt8](repeating: 0, count: 4096)
            for answer in answers {
                guard recv(client, &buffer, buffer.count, 0) > 0 else { return }
                for (index, piece) in answer.enumerated() {
                    if index > 0 { usleep(20_000) }
                    let sent = piece.withUnsafeBytes { send(client, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
                    guard sent == piece.count else { return }
                }
            }
            // Anything the client still sends (the rest of a pipeline) is read and left unanswered.
            while holdOpen {
                var ready = pollfd(fd: client, events: Int16(POLLIN), revents: 0)
                guard poll(&ready, 1, 60_000) > 0, recv(client, &buffer, buffer.count, 0) > 0 else { break }
            }
        }.start()
    }

    deinit { close(listener) }
}
