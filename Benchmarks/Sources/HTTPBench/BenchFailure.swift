/// Raised when a client gets something other than a 200 with the whole file.
struct BenchFailure: Error, CustomStringConvertible {
    let description: String
}
