// swift-tools-version:6.1
import PackageDescription

/// `webimage-server`: an imgproxy-compatible image server on SwiftWebImage and Hummingbird 2.
/// A package of its own, so that users of the framework never resolve the server's dependencies.
let swiftSettings: [SwiftSetting] = [.swiftLanguageMode(.v6)]

let package = Package(
    name: "ImageServer",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "webimage-server", targets: ["webimage-server"]),
        .library(name: "ImageServer", targets: ["ImageServer"]),
    ],
    dependencies: [
        .package(name: "SwiftWebImage", path: "../.."),
        // No default traits: swift-configuration support is not used (our own env/file config is).
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.28.1", traits: []),
        .package(url: "https://github.com/apple/swift-http-types.git", from: "1.8.0"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-nio-extras.git", from: "1.35.2"),
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-metrics.git", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus.git", from: "2.4.1"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.13.0"),
    ],
    targets: [
        // HMAC-SHA256 for URL signatures from the system's OpenSSL libcrypto, which the main package's
        // disk cache and libcurl already link: no build time, unlike compiling swift-crypto.
        .systemLibrary(
            name: "CLibCrypto", path: "Sources/CLibCrypto", pkgConfig: "libcrypto",
            providers: [.apt(["libssl-dev"])]),
        // glibc's allocator controls (<malloc.h>): arena cap and trim, so memory freed after a load goes back.
        .target(name: "CMalloc", path: "Sources/CMalloc"),
        // The server itself, a library so the tests can start it in-process.
        .target(
            name: "ImageServer",
            dependencies: [
                "CLibCrypto",
                "CMalloc",
                .product(name: "WebImage", package: "SwiftWebImage"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                // Processing options: the parser and the transformers they build.
                .product(name: "WebImageTransformers", package: "SwiftWebImage"),
                .product(name: "WebImageRedisCache", package: "SwiftWebImage"),
                // SVG sources: rasterised with librsvg, or answered as sanitised SVG.
                .product(name: "WebImageSVGCoder", package: "SwiftWebImage"),
            ],
            swiftSettings: swiftSettings),
        .executableTarget(
            name: "webimage-server",
            dependencies: ["ImageServer", .product(name: "ArgumentParser", package: "swift-argument-parser")],
            swiftSettings: swiftSettings),
        .testTarget(
            name: "ImageServerTests",
            dependencies: [
                "ImageServer", .product(name: "HummingbirdTesting", package: "hummingbird"),
                // The loopback sockets, redis-server, gates and polling the main package's tests use.
                .product(name: "WebImageTestSupport", package: "SwiftWebImage"),
            ],
            swiftSettings: swiftSettings),
    ]
)
