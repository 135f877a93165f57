import Foundation
import WebImageCore

/// Feeds data to an incremental decoder the way a download does, `chunk` bytes at a time.
public enum IncrementalFeed {
    /// The final image, and the partial images seen before the last byte (only those marked incomplete).
    public static func run(
        _ decoder: any IncrementalImageDecoder, _ data: Data,
        chunk: Int
    ) throws -> (image: Image, partials: [Image]) {
        var partials: [Image] = []
        var offset = 0
        while offset < data.count {
            let end = min(data.count, offset + chunk)
            try decoder.append(data.subdata(in: offset..<end))
            if end < data.count, let partial = decoder.partialImage(), partial.isIncomplete { partials.append(partial) }
            offset = end
        }
        return (try decoder.finish(), partials)
    }
}
