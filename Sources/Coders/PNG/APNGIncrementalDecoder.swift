import Foundation
import WebImageCore

/// Decodes a PNG download that may turn out to be an APNG. The first bytes cannot tell (`acTL` comes
/// after IHDR and maybe other chunks), so every byte goes to the still PNG decoder, whose partial
/// images show the default image as it arrives; the bytes are also kept until the stream proves to
/// be a plain PNG (`IDAT` before any `acTL`). At the end an APNG is decoded as an animation, a plain
/// PNG is what the still decoder finished.
final class APNGIncrementalDecoder: IncrementalImageDecoder {
    private let options: DecodeOptions
    private let still: PNGIncrementalDecoder
    /// Every byte so far while the stream may be an APNG; emptied once it proved to be a plain PNG.
    private var kept = Data()
    /// nil until `acTL` or `IDAT` shows up.
    private var isAnimated: Bool?
    /// What the still decoder threw for an APNG; the animation decode gives the verdict instead.
    private var stillFailed = false

    init(options: DecodeOptions) {
        self.options = options
        still = PNGIncrementalDecoder(options: options)
    }

    func append(_ bytes: Data) throws(ImageError) {
        if isAnimated != false {
            kept.append(bytes)
            if isAnimated == nil {
                isAnimated = APNGContainer.sniffAnimation(kept)
                if isAnimated == false { kept = Data() }
            }
        }
        guard !stillFailed else { return }
        do {
            try still.append(bytes)
        } catch {
            // A plain PNG fails here and now; an APNG's still view failing is not the animation's verdict,
            // unless the decode was stopped (deadline, cancellation) or ran out of a budget.
            switch error {
            case .cancelled, .decodeBudgetExceeded: throw error
            default: break
            }
            guard isAnimated == true else { throw error }
            stillFailed = true
        }
    }

    func partialImage() -> Image? { stillFailed ? nil : still.partialImage() }

    func finish() throws(ImageError) -> Image {
        guard isAnimated == true else { return try still.finish() }
        return try APNGCoder().decode(kept, options: options)
    }
}
