import Foundation
import WebImageCore

/// One caller of a transfer: its token, handlers, and the per-caller parts of the context.
struct Subscriber: Sendable {
    let token: HTTPDownloadToken
    let progress: LoadProgressHandler?
    let completion: @Sendable (Result<LoadedImage, ImageError>) -> Void
    /// Wants partial images (`.progressiveLoad` with a progress handler and no decryptor).
    let wantsPartialImages: Bool
    /// Nanoseconds between progress reports (the context's `minimumProgressInterval`).
    let progressInterval: UInt64
    let responseModifier: (any ResponseModifier)?
    let decryptor: (any DownloadDecryptor)?
    /// When progress was last reported (`DispatchTime` nanoseconds); 0 before the first report.
    var lastProgress: UInt64 = 0
}
