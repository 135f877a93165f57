import Foundation
import WebImageCore

/// Something that happened to one transfer, as ``HTTPLoader/events()`` reports it.
///
/// A transfer serves every coalesced caller of the same request; ``HTTPDownloadToken/transferID``
/// names the transfer a caller's token belongs to.
public enum HTTPDownloadEvent: Sendable {
    /// The transfer left the queue and its request is being sent (again, after a retry).
    case started(transferID: UInt64, url: URL)
    /// The final response head arrived (after redirects), as sent: a resumed body's is the 206.
    case responseReceived(transferID: UInt64, response: ImageResponse)
    /// The transfer ended: with its outcome for the waiting callers (`.cancelled` when the last caller
    /// left), and its metrics when a request was sent.
    case finished(transferID: UInt64, url: URL, error: ImageError?, metrics: HTTPTransferMetrics?)

    /// The transfer this event is about.
    public var transferID: UInt64 {
        switch self {
        case .started(let id, _), .responseReceived(let id, _), .finished(let id, _, _, _): id
        }
    }
}
