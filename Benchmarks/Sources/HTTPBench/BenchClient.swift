import Foundation

/// One HTTP client under test: fetches a URL and returns the body's size.
protocol BenchClient: Sendable {
    var name: String { get }
    func fetch(_ url: URL) async throws -> Int
    func shutdown() async throws
}
