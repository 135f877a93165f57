import Dispatch

/// A pointer handed to the parts of ``SplitWork/run(parts:_:)``.
///
/// Unchecked Sendable because a pointer carries no ownership: the callers of `run` keep the memory alive for
/// the whole call (it returns only after every part has finished), and every part writes only its own
/// disjoint rows or columns, while reads go to memory no part writes.
struct SharedPointer<Pointee>: @unchecked Sendable {
    let address: UnsafeMutablePointer<Pointee>
    init(_ address: UnsafeMutablePointer<Pointee>) { self.address = address }
    init(_ address: UnsafePointer<Pointee>) { self.address = UnsafeMutablePointer(mutating: address) }
}

/// Runs the parts of one filter pass on the processors at once.
enum SplitWork {
    /// Calls `body(part)` for every part in `0..<parts`, concurrently, and returns when all have returned.
    static func run(parts: Int, _ body: @Sendable (Int) -> Void) {
        if parts == 1 { return body(0) }
        DispatchQueue.concurrentPerform(iterations: parts, execute: body)
    }
}
