import Foundation
import Testing

@testable import ImageServer

@Suite struct URLSignerTests {
    static let key = EnvironmentReader.hexBytes("943b421c9eb07c830af81030552c86009268de4e532ba2ee2eab8247c6da0881")!
    static let salt = EnvironmentReader.hexBytes("520f986b998545b4785e0defbc4f3c1203f22de2374a3d53cb7a7fe9fea309c5")!
    static let path = "/rs:fill:300:400:0/g:sm/aHR0cDovL2V4YW1w/bGUuY29tL2ltYWdl/cy9jdXJpb3NpdHku/anBn.png"
    /// Computed independently with Python's `hmac` and `base64.urlsafe_b64encode` (padding stripped).
    static let expected = "90UxdwGRAI2bpLSHKkZculJau5ahfxfS0h3fMuQAf40"

    @Test func signsAsImgproxyDocuments() {
        let signer = URLSigner(keyPairs: [.init(key: Self.key, salt: Self.salt)])
        #expect(signer.signature(for: Self.path) == Self.expected)
        #expect(signer.verify(signature: Substring(Self.expected), path: Substring(Self.path)))
    }

    @Test func refusesOtherPathsAndSignatures() {
        let signer = URLSigner(keyPairs: [.init(key: Self.key, salt: Self.salt)])
        #expect(!signer.verify(signature: Substring(Self.expected), path: Substring(Self.path + "x")))
        #expect(!signer.verify(signature: "insecure", path: Substring(Self.path)))
        #expect(!signer.verify(signature: "", path: Substring(Self.path)))
        #expect(!signer.verify(signature: "!!!", path: Substring(Self.path)))
    }

    @Test func truncatedSignaturesKeepTheirPrefix() {
        let signer = URLSigner(keyPairs: [.init(key: Self.key, salt: Self.salt)], signatureSize: 8)
        let short = signer.signature(for: Self.path)
        #expect(Base64URL.decode(Substring(short))?.count == 8)
        #expect(
            Base64URL.decode(Substring(Self.expected))?.prefix(8).elementsEqual(Base64URL.decode(Substring(short))!)
                == true)
        #expect(signer.verify(signature: Substring(short), path: Substring(Self.path)))
    }

    @Test func anyKeyOfARotationVerifies() {
        let old = URLSigner.KeyPair(key: Array("old".utf8), salt: Array("s1".utf8))
        let new = URLSigner.KeyPair(key: Self.key, salt: Self.salt)
        let signer = URLSigner(keyPairs: [old, new])
        #expect(signer.verify(signature: Substring(Self.expected), path: Substring(Self.path)))
    }

    @Test func withoutKeysEverySignaturePasses() {
        let signer = URLSigner(keyPairs: [])
        #expect(!signer.isEnabled)
        #expect(signer.signature(for: Self.path) == "insecure")
        #expect(signer.verify(signature: "anything", path: Substring(Self.path)))
    }
}

@Suite struct ImageURLPathTests {
    @Test func imgproxysURLConventions() throws {
        // A query after the extension is ignored; a collapsed `http:/` is read as `http://`.
        let query = try ImageURLPath("/sig/rs:fit:10:10/plain/http:/example.com/a.jpg@png?utm=1")
        #expect(query.sourceURL.absoluteString == "http://example.com/a.jpg")
        #expect(query.extensionFormat == .png)
        let https = try ImageURLPath("/sig/plain/https:/example.com/b.png")
        #expect(https.sourceURL.absoluteString == "https://example.com/b.png")
        // IMGPROXY_ARGUMENTS_SEPARATOR and IMGPROXY_BASE_URL.
        let conventions = ImageURLPath.Conventions(argumentSeparator: ",", baseURL: "http://images.example/")
        let relative = try ImageURLPath("/sig/rs,fit,10,10/q,70/plain/cats/tom.jpg", conventions: conventions)
        #expect(relative.optionSegments == ["rs:fit:10:10", "q:70"])
        #expect(relative.sourceURL.absoluteString == "http://images.example/cats/tom.jpg")
        let environment = try ServerConfiguration(environment: [
            "IMGPROXY_ARGUMENTS_SEPARATOR": ",",
            "IMGPROXY_BASE_URL": "http://images.example/",
        ])
        #expect(environment.urlConventions == conventions)
        #expect(throws: ConfigurationError.self) {
            try ServerConfiguration(environment: ["IMGPROXY_ARGUMENTS_SEPARATOR": "//"])
        }
    }

    /// imgproxy's options/processing_options_test.go: TestParsePlainURLWithReplacement,
    /// TestParseBase64URLWithReplacement, TestParseBase64URLWithFilename, TestParsePlainURLWithBase.
    @Test func urlReplacementsBaseURLAndBase64FileNames() throws {
        let rules = try #require(URLReplacement.rules("test://*/=test2://images.dev/${1}/dolor/;test2://=http://"))
        let conventions = ImageURLPath.Conventions(replacements: rules)
        let plain = try ImageURLPath("/sig/size:100:100/plain/test://lorem/ipsum.jpg@png", conventions: conventions)
        #expect(plain.sourceURL.absoluteString == "http://images.dev/lorem/dolor/ipsum.jpg")
        #expect(plain.extensionFormat == .png)
        let encoded = Base64URL.encode(Array("test://lorem/ipsum.jpg?param=value".utf8))
        let base64 = try ImageURLPath("/sig/size:100:100/\(encoded).png", conventions: conventions)
        #expect(base64.sourceURL.absoluteString == "http://images.dev/lorem/dolor/ipsum.jpg?param=value")
        // `$1` works as `${1}`; a pattern that does not match leaves the URL alone.
        #expect(
            URLReplacement(pattern: "s3://*/", replacement: "https://$1.s3.example/").apply(to: "s3://bucket/a.jpg")
                == "https://bucket.s3.example/a.jpg")
        #expect(
            URLReplacement(pattern: "s3://*/", replacement: "x").apply(to: "http://bucket/a.jpg")
                == "http://bucket/a.jpg")
        // The last segment is a file name with IMGPROXY_BASE64_URL_INCLUDES_FILENAME.
        let origin = Base64URL.encode(Array("http://images.dev/lorem/ipsum.jpg?param=value".utf8))
        let named = try ImageURLPath(
            "/sig/size:100:100/\(origin).png/puppy.jpg",
            conventions: ImageURLPath.Conventions(base64IncludesFilename: true))
        #expect(named.sourceURL.absoluteString == "http://images.dev/lorem/ipsum.jpg?param=value")
        #expect(named.extensionFormat == .png)
        // The base URL is prepended only to URLs that do not start with it.
        let based = ImageURLPath.Conventions(baseURL: "http://images.dev/")
        #expect(
            try ImageURLPath("/sig/plain/lorem/ipsum.jpg@png", conventions: based).sourceURL.absoluteString
                == "http://images.dev/lorem/ipsum.jpg")
        #expect(
            try ImageURLPath("/sig/plain/http://images.dev/lorem/ipsum.jpg", conventions: based).sourceURL
                .absoluteString
                == "http://images.dev/lorem/ipsum.jpg")
        let environment = try ServerConfiguration(environment: [
            "IMGPROXY_URL_REPLACEMENTS": "test://*/=test2://images.dev/${1}/dolor/;test2://=http://",
            "IMGPROXY_BASE64_URL_INCLUDES_FILENAME": "true",
        ])
        #expect(environment.urlConventions.replacements == rules)
        #expect(environment.urlConventions.base64IncludesFilename)
        #expect(throws: ConfigurationError.self) {
            try ServerConfiguration(environment: ["IMGPROXY_URL_REPLACEMENTS": "no-equals"])
        }
    }

    @Test func plainForm() throws {
        let path = try ImageURLPath("/sig/rs:fit:10:10/q:70/plain/http%3A%2F%2Fexample.com%2Fa%20b.jpg%3Fx%3D1@webp")
        #expect(path.signature == "sig")
        #expect(path.signedPart == "/rs:fit:10:10/q:70/plain/http%3A%2F%2Fexample.com%2Fa%20b.jpg%3Fx%3D1@webp")
        #expect(path.optionSegments == ["rs:fit:10:10", "q:70"])
        #expect(path.sourceURL.absoluteString == "http://example.com/a%20b.jpg?x=1")
        #expect(path.extensionFormat == .webp)
    }

    @Test func plainFormUnescapedAndWithoutExtension() throws {
        let path = try ImageURLPath("/sig/plain/https://example.com/images/a.png")
        #expect(path.optionSegments.isEmpty)
        #expect(path.sourceURL.absoluteString == "https://example.com/images/a.png")
        #expect(path.extensionFormat == nil)
    }

    @Test func base64FormSplitBySlashes() throws {
        let path = try ImageURLPath(
            "/sig/rs:fill:300:400:0/g:sm/aHR0cDovL2V4YW1w/bGUuY29tL2ltYWdl/cy9jdXJpb3NpdHku/anBn.png")
        #expect(path.optionSegments == ["rs:fill:300:400:0", "g:sm"])
        #expect(path.sourceURL.absoluteString == "http://example.com/images/curiosity.jpg")
        #expect(path.extensionFormat == .png)
    }

    @Test(arguments: [
        "", "/", "/sig", "/sig/", "/sig/plain/", "/sig/plain/ftp%3A%2F%2Fx%2Fa.png",
        "/sig/plain/file%3A%2F%2F%2Fetc%2Fpasswd", "/sig/@@@", "/sig/plain/http%3A%2F%2Fx%2Fa.png@nope",
    ])
    func malformedPathsAreRefused(_ target: String) {
        #expect(throws: ImageURLPath.Malformed.self) { try ImageURLPath(target) }
    }
}

@Suite struct SourceAllowListTests {
    @Test func prefixesAndHostWildcards() {
        let list = SourceAllowList(["https://cdn.example.com/img/", "https://*.example.org/"])
        #expect(list.allows(URL(string: "https://cdn.example.com/img/a.jpg")!))
        #expect(!list.allows(URL(string: "https://cdn.example.com/other/a.jpg")!))
        #expect(list.allows(URL(string: "https://media.example.org/a.jpg")!))
        #expect(!list.allows(URL(string: "https://evil.com/.example.org/a.jpg")!))
        #expect(!list.allows(URL(string: "https://a.b.example.org.evil.com/a.jpg")!))
        #expect(SourceAllowList([]).allows(URL(string: "http://anything/")!))
    }
}

@Suite struct ConfigurationTests {
    @Test func readsImgproxyVariables() throws {
        let configuration = try ServerConfiguration(environment: [
            "IMGPROXY_BIND": ":9090", "IMGPROXY_KEY": "736563726574", "IMGPROXY_SALT": "68656c6c6f",
            "IMGPROXY_ALLOWED_SOURCES": "https://a.com/, https://b.com/",
            "IMGPROXY_ALLOW_LOOPBACK_SOURCE_ADDRESSES": "true", "IMGPROXY_MAX_SRC_RESOLUTION": "12.5",
            "IMGPROXY_MAX_SRC_FILE_SIZE": "1000", "IMGPROXY_MAX_ANIMATION_FRAMES": "7",
            "IMGPROXY_DOWNLOAD_TIMEOUT": "3", "IMGPROXY_TTL": "60", "IMGPROXY_WORKERS": "3",
            "IMGPROXY_REQUESTS_QUEUE_SIZE": "5", "IMGPROXY_QUALITY": "70", "IMGPROXY_UNRELATED": "ignored",
        ])
        #expect(configuration.host == "0.0.0.0" && configuration.port == 9090)
        #expect(configuration.signingKeys == [.init(key: Array("secret".utf8), salt: Array("hello".utf8))])
        #expect(configuration.allowedSources == ["https://a.com/", "https://b.com/"])
        #expect(configuration.allowsLoopbackSources && !configuration.allowsPrivateSources)
        #expect(configuration.maxSourcePixels == 12_500_000)
        #expect(configuration.maxSourceFileSize == 1000)
        #expect(configuration.maxAnimationFrames == 7)
        #expect(configuration.downloadTimeout == 3)
        #expect(configuration.cacheTTL == 60)
        #expect(configuration.workers == 3 && configuration.queueSize == 5)
        #expect(configuration.defaultQuality == 70)
    }

    @Test func defaultsAreTheSafeOnes() throws {
        let configuration = try ServerConfiguration(environment: [:])
        #expect(configuration.host == "127.0.0.1")
        #expect(configuration.signingKeys.isEmpty)
        #expect(!configuration.allowsLoopbackSources && !configuration.allowsPrivateSources)
        #expect(configuration.maxSourceFileSize == ServerConfiguration.defaultMaxSourceFileSize)
    }

    @Test func readsTheServersOwnVariables() throws {
        let configuration = try ServerConfiguration(environment: [
            "WEBIMAGE_SERVER_SOURCE_BYTES": "1000", "WEBIMAGE_SERVER_SOURCE_MEMORY": "2000",
            "WEBIMAGE_SERVER_RESULT_MEMORY": "0", "WEBIMAGE_SERVER_SHRINK_ON_LOAD_GAP": "2",
            "WEBIMAGE_SERVER_WEBP_EFFORT": "2", "WEBIMAGE_SERVER_REDIS_URL": "redis://a:1, redis://b:2",
            "WEBIMAGE_SERVER_REDIS_TIMEOUT": "1.5", "WEBIMAGE_SERVER_PNG_ROW_FILTER": "adaptive",
            "WEBIMAGE_SERVER_REDIS_SPIN_US": "0",
        ])
        #expect(configuration.sourceBytesLimit == 1000 && configuration.sourceMemoryLimit == 2000)
        #expect(configuration.resultMemoryLimit == 0 && configuration.shrinkOnLoadGap == 2)
        #expect(configuration.webpEffort == 2 && configuration.pngRowFilter == .adaptive)
        #expect(
            configuration.resultRedisURLs == ["redis://a:1", "redis://b:2"] && configuration.resultRedisTimeout == 1.5)
        #expect(configuration.resultRedisSpinMicroseconds == 0)
        let defaults = try ServerConfiguration(environment: [:])
        #expect(defaults.shrinkOnLoadGap == 1 && defaults.webpEffort == nil)
        #expect(defaults.resultRedisURLs.isEmpty && defaults.resultRedisTimeout == 0.25)
        #expect(defaults.resultRedisSpinMicroseconds == 200)
    }

    @Test func badValuesNameTheirVariable() {
        for (name, value) in [
            ("IMGPROXY_TTL", "soon"), ("IMGPROXY_BIND", "nowhere"), ("IMGPROXY_KEY", "xyz"),
            ("IMGPROXY_ALLOW_LOOPBACK_SOURCE_ADDRESSES", "maybe"), ("IMGPROXY_QUALITY", "101"),
            ("WEBIMAGE_SERVER_SHRINK_ON_LOAD_GAP", "0.5"), ("WEBIMAGE_SERVER_SOURCE_BYTES", "-1"),
            ("WEBIMAGE_SERVER_WEBP_EFFORT", "7"), ("WEBIMAGE_SERVER_REDIS_TIMEOUT", "0"),
            ("WEBIMAGE_SERVER_PNG_ROW_FILTER", "paeth"), ("WEBIMAGE_SERVER_REDIS_SPIN_US", "1001"),
            ("WEBIMAGE_SERVER_REDIS_SPIN_US", "-1"),
        ] {
            var environment = [name: value]
            if name == "IMGPROXY_KEY" { environment["IMGPROXY_SALT"] = "00" }
            #expect(throws: ConfigurationError.self) { try ServerConfiguration(environment: environment) }
        }
    }

    @Test func fileUnderEnvironment() throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("webimage-server-\(UUID()).env")
        try """
        # a comment
        IMGPROXY_TTL=120
        IMGPROXY_QUALITY = "65"
        IMGPROXY_BIND=127.0.0.1:7000
        """.write(to: file, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: file) }
        let configuration = try ServerConfiguration(file: file, environment: ["IMGPROXY_TTL": "30"])
        #expect(configuration.cacheTTL == 30)
        #expect(configuration.defaultQuality == 65)
        #expect(configuration.port == 7000)
    }
}
