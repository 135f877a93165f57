import Foundation

/// The identity of a transfer, for coalescing.
struct TransferKey: Hashable, Sendable {
    let url: String
    let method: String
    let headerLines: [String]
    let handlesCookies: Bool
    let allowsInvalidCertificates: Bool
    let timeout: Duration
}
