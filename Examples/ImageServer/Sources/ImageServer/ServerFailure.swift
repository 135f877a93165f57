import Hummingbird
import WebImage

/// A request that ends in an error answer: its HTTP status and a message for the body and the log.
struct ServerFailure: Error, Sendable {
    var code: Int
    var message: String
    /// Seconds the client should wait before retrying (`Retry-After`), for 503s.
    var retryAfter: Int?

    init(status: Int, _ message: String, retryAfter: Int? = nil) {
        self.code = status
        self.message = message
        self.retryAfter = retryAfter
    }

    /// How long an overloaded server asks clients to wait: one second, about the time a worker takes
    /// for a few typical requests, so the queue has drained by then.
    static let overloadRetryAfterSeconds = 1

    /// imgproxy's answer to a full queue: 429 Too Many Requests.
    static let overloaded = ServerFailure(
        status: 429, "overloaded: every worker is busy and the queue is full",
        retryAfter: overloadRetryAfterSeconds)
    static let deadlineExceeded = ServerFailure(status: 504, "the request took longer than the server's deadline")

    /// The answer for an error from fetching, decoding, transforming or encoding, with imgproxy's codes: a
    /// source that cannot be had is "not found" (404; its origin's own 4xx passes through, a 5xx is 502,
    /// a timeout 504), a source over the limits or not an image is 422.
    init(_ error: ImageError) {
        switch error {
        case .invalidURL(let text):
            self.init(status: 404, "source unreachable: invalid URL \(text)")
        case .requestRefused(let reason):
            self.init(status: 404, "source address refused: \(reason)")
        case .invalidStatusCode(let code) where (400..<500).contains(code):
            self.init(status: code, "source answered HTTP \(code)")
        case .invalidStatusCode(let code) where code >= 500:
            self.init(status: 502, "source answered HTTP \(code)")
        case .invalidStatusCode(let code):
            self.init(status: 404, "source unreachable: HTTP \(code)")
        case .responseTooLarge, .imageTooLarge, .decodeBudgetExceeded:
            self.init(status: 422, "source over the server's limits: \(error)")
        case .loadingFailed(let failure):
            if case .decompressionRatioExceeded = failure.reason(as: HTTPLoaderFailure.self) {
                self.init(status: 422, "source over the server's limits: \(error)")
            } else {
                self.init(status: 404, "source unreachable: \(error)")
            }
        case .badImageData, .unsupportedFormat, .invalidContentType:
            self.init(status: 422, "source is not an image this server reads: \(error)")
        case .invalidParameter:
            self.init(status: 422, "the processing options cannot be applied to this source: \(error)")
        case .timeout:
            self.init(status: 504, "source timed out")
        case .fileIO:
            self.init(status: 404, "source unreachable: \(error)")
        case .cancelled:
            self.init(status: 504, "cancelled")
        default:
            self.init(status: 500, "\(error)")
        }
    }
}

extension ServerFailure: HTTPResponseError {
    var status: HTTPResponse.Status { HTTPResponse.Status(code: code) }

    /// The plain-text error answer, never cached, with `Retry-After` when the server asks for one.
    func response(from request: Request, context: some RequestContext) throws -> Response {
        var headers: HTTPFields = [.contentType: "text/plain; charset=utf-8", .cacheControl: "no-cache"]
        if let retryAfter { headers[.retryAfter] = String(retryAfter) }
        return Response(
            status: status, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(string: message + "\n")))
    }
}
