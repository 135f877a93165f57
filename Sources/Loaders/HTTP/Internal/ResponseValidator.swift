import Foundation
import WebImageCore

/// Decides whether a response is one we accept, and turns a transfer's bytes into one caller's result.
/// Also the one shared holder of the loader's configuration on the event thread: a class, so handing it
/// to each transfer is a single retain rather than a copy of every field.
final class ResponseValidator: Sendable {
    let configuration: HTTPLoaderConfiguration
    /// The configuration's TLS settings as libcurl options, prepared once.
    let tls: TLSOptions
    /// With ``HTTPProxy/environment``, its variables (the configuration's, else the process's, read
    /// here once); nil with the other proxy settings.
    let environmentProxy: EnvironmentProxy?

    init(configuration: HTTPLoaderConfiguration) {
        self.configuration = configuration
        tls = TLSOptions(configuration.tls)
        environmentProxy =
            configuration.proxy == .environment
            ? EnvironmentProxy(configuration.proxyEnvironment ?? ProcessInfo.processInfo.environment) : nil
    }

    /// Why `response` is not acceptable, or nil when it is. A 304 answering our validators is
    /// "not modified"; a 304 we did not ask for is a bad status.
    func rejection(of response: ImageResponse, sentValidators: Bool) -> ImageError? {
        if response.statusCode == 304 {
            return sentValidators ? .cacheNotModified : .invalidStatusCode(304)
        }
        guard configuration.acceptableStatusCodes.contains(response.statusCode) else {
            return .invalidStatusCode(response.statusCode)
        }
        if let accepted = configuration.acceptableContentTypes, !Self.matches(response.mimeType, accepted) {
            return .invalidContentType(response.mimeType)
        }
        return nil
    }

    /// One caller's result from the transfer's response and body: its response modifier, the checks,
    /// then its decryptor.
    func result(
        response: ImageResponse, body: Data, for subscriber: Subscriber,
        sentValidators: Bool
    ) -> Result<LoadedImage, ImageError> {
        var response = response
        if let modifier = subscriber.responseModifier {
            do { response = try modifier.modify(response) } catch { return .failure(error) }
        }
        if let error = rejection(of: response, sentValidators: sentValidators) { return .failure(error) }
        var data = body
        if let decryptor = subscriber.decryptor {
            guard let decrypted = decryptor.decrypt(data, response: response) else {
                return .failure(.badImageData(reason: "the decryptor could not decrypt \(response.url.absoluteString)"))
            }
            data = decrypted
        }
        guard !data.isEmpty else {
            return .failure(.badImageData(reason: "empty body from \(response.url.absoluteString)"))
        }
        return .success(LoadedImage(data: data, image: nil, response: response))
    }

    /// Whether `mimeType` is in `accepted`, where "image/*" accepts a whole family.
    static func matches(_ mimeType: String?, _ accepted: Set<String>) -> Bool {
        guard let mimeType else { return false }
        if accepted.contains(mimeType) { return true }
        guard let slash = mimeType.firstIndex(of: "/") else { return false }
        return accepted.contains(mimeType[..<slash] + "/*") || accepted.contains("*/*")
    }
}
