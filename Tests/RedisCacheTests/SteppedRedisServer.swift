import Foundation
import Glibc
import LoopbackHTTPServer
import WebImageTestSupport

/// A loopback TCP server for one connection that answers each request it receives with the next answer's
/// pieces, sent one `send` at a time with a short pause between them, so the client's receives see them
/// apart (the client's results must not depend on whether they do). Closes after the last answer, or
/// keeps the connection open for 3 s.
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
            if holdOpen { Thread.sleep(forTimeInterval: 3) }
        }.start()
    }

    deinit { close(listener) }
}
