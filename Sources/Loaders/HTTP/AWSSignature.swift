import Foundation

/// AWS Signature Version 4 for every request of a loader (libcurl signs them: `CURLOPT_AWS_SIGV4`), as S3
/// and S3-compatible stores (MinIO, Ceph, R2) want. Set it on ``HTTPLoaderConfiguration/awsSignature``,
/// or use ``S3Loader``, which also maps `s3://bucket/key` URLs onto an endpoint.
public struct AWSSignature: Sendable, Hashable {
    /// The access key ID.
    public var accessKeyID: String
    /// The secret access key.
    public var secretAccessKey: String
    /// A temporary credential's session token (`x-amz-security-token`); nil for long-term keys.
    public var sessionToken: String?
    /// The region the requests are signed for (`us-east-1`).
    public var region: String
    /// The service they are signed for: `s3` by default.
    public var service: String

    /// A signature with these credentials, for `region` and `service`.
    public init(
        accessKeyID: String, secretAccessKey: String, sessionToken: String? = nil, region: String,
        service: String = "s3"
    ) {
        self.accessKeyID = accessKeyID
        self.secretAccessKey = secretAccessKey
        self.sessionToken = sessionToken
        self.region = region
        self.service = service
    }

    /// Credentials from AWS's standard variables (`AWS_ACCESS_KEY_ID`, `AWS_SECRET_ACCESS_KEY`,
    /// `AWS_SESSION_TOKEN`, `AWS_REGION` or `AWS_DEFAULT_REGION`, else `us-east-1`); nil without a key pair.
    public static func fromEnvironment(
        _ environment: [String: String] = ProcessInfo.processInfo.environment,
        service: String = "s3"
    ) -> AWSSignature? {
        func value(_ name: String) -> String? { environment[name].flatMap { $0.isEmpty ? nil : $0 } }
        guard let key = value("AWS_ACCESS_KEY_ID"), let secret = value("AWS_SECRET_ACCESS_KEY") else { return nil }
        return AWSSignature(
            accessKeyID: key, secretAccessKey: secret, sessionToken: value("AWS_SESSION_TOKEN"),
            region: value("AWS_REGION") ?? value("AWS_DEFAULT_REGION") ?? "us-east-1", service: service)
    }

    /// libcurl's provider string: `aws:amz:REGION:SERVICE`.
    var curlProvider: String { "aws:amz:\(region):\(service)" }

    /// The headers signed with every request: the payload hash S3 requires (a GET's body is empty) and
    /// the session token.
    var headerLines: [String] {
        ["x-amz-content-sha256: " + Self.emptyPayloadHash]
            + (sessionToken.map { ["x-amz-security-token: \($0)"] } ?? [])
    }

    /// SHA-256 of no bytes, in hex.
    static let emptyPayloadHash = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
}
