/// Something running that its caller can cancel (SDWebImage's `SDWebImageOperation`).
public protocol ImageOperation: AnyObject, Sendable {
    /// Stops the work for this caller. After `cancel()` the caller's completion is not called.
    func cancel()
    /// Whether `cancel()` was called.
    var isCancelled: Bool { get }
}
