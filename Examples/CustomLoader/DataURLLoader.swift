import Foundation
import WebImageCore

/// Loads `data:` URLs (`data:image/png;base64,...`): a loader for a scheme of its own, in a page.
///
/// It also applies the context's request modifier, as a network loader would, and reports the
/// headers it would have sent in the response, so the example can show them.
struct DataURLLoader: ImageLoader {
    func canRequestImage(for url: URL) -> Bool { url.scheme == "data" }

    func requestImage(with url: URL, options: ImageOptions, context: ImageContext, progress: LoadProgressHandler?,
                      completion: @escaping @Sendable (Result<LoadedImage, ImageError>) -> Void) -> any ImageOperation {
        var request = ImageRequest(url: url)
        if let modifier = context.requestModifier {
            guard let modified = modifier.modify(request) else {
                completion(.failure(.requestRefused(reason: "the request modifier refused \(url.absoluteString.prefix(40))")))
                return FinishedOperation()
            }
            request = modified
        }
        // data:[<mediatype>][;base64],<payload>
        let text = url.absoluteString.dropFirst("data:".count)
        guard let comma = text.firstIndex(of: ",") else {
            completion(.failure(.invalidURL("data URL without a comma")))
            return FinishedOperation()
        }
        let header = text[..<comma]
        let payload = String(text[text.index(after: comma)...])
        let decoded: Data? = header.hasSuffix(";base64")
            ? Data(base64Encoded: payload.removingPercentEncoding ?? payload)
            : payload.removingPercentEncoding.map { Data($0.utf8) }
        guard let data = decoded else {
            completion(.failure(.badImageData(reason: "data URL payload is not valid base64")))
            return FinishedOperation()
        }
        progress?(LoadProgress(receivedBytes: Int64(data.count), expectedBytes: Int64(data.count)))
        let mediaType = header.split(separator: ";").first.map(String.init) ?? "text/plain"
        var headers = ["content-type": mediaType]
        for (name, value) in request.headers { headers["x-sent-" + name.lowercased()] = value }
        completion(.success(LoadedImage(data: data, response: ImageResponse(url: url, headers: headers))))
        return FinishedOperation()
    }
}
