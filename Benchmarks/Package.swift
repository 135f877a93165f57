// swift-tools-version:6.0
// Benchmarks live in their own package so CI never builds their dependencies.
// Run from this folder: `swift run -c release coder-bench` (also http-bench, cache-bench).
import PackageDescription

let swiftSettings: [SwiftSetting] = [.swiftLanguageMode(.v6)]

var dependencies: [Package.Dependency] = [
    .package(name: "SwiftWebImage", path: ".."),
]
var targets: [Target] = []
var products: [Product] = []

// MARK: - Coders (issues 3 and 4)

products += [.executable(name: "coder-bench", targets: ["CoderBench"])]
targets += [
    // libjpeg-turbo (TurboJPEG API), libpng and libwebp called directly: the baseline.
    .systemLibrary(name: "CRawCodecs", path: "Sources/CRawCodecs"),
    // giflib plus a plain-C compositor: the baseline for decoding every frame of an animated GIF.
    .target(name: "CRawGIF", path: "Sources/CRawGIF",
            linkerSettings: [.linkedLibrary("gif")]),
    .executableTarget(name: "CoderBench",
                      dependencies: ["CRawCodecs", "CRawGIF", .product(name: "WebImage", package: "SwiftWebImage")],
                      path: "Sources/CoderBench", swiftSettings: swiftSettings),
]

// MARK: - HTTP loader (issue 5)

dependencies += [
    .package(url: "https://github.com/swift-server/async-http-client.git", from: "1.37.0"),
    .package(url: "https://github.com/apple/swift-nio.git", from: "2.0.0"),
]
products += [
    .executable(name: "http-bench", targets: ["HTTPBench"]),
]
targets += [
    // Our loader vs URLSession vs AsyncHTTPClient vs `curl -Z`, against a local nginx.
    .executableTarget(name: "HTTPBench",
                      dependencies: [
                          .product(name: "WebImageHTTPLoader", package: "SwiftWebImage"),
                          .product(name: "AsyncHTTPClient", package: "async-http-client"),
                          .product(name: "NIOCore", package: "swift-nio"),
                      ],
                      path: "Sources/HTTPBench", swiftSettings: swiftSettings),
]

// MARK: - Caches (issue 6; the Redis tier rows: issue 15)

products += [
    .executable(name: "cache-bench", targets: ["cache-bench"]),
]
targets += [
    // Disk cache vs plain POSIX file I/O, memory cache vs Foundation's NSCache, side by side in one run.
    .executableTarget(name: "cache-bench",
                      dependencies: [
                          .product(name: "WebImageCore", package: "SwiftWebImage"),
                          .product(name: "WebImageMemoryCache", package: "SwiftWebImage"),
                          .product(name: "WebImageDiskCache", package: "SwiftWebImage"),
                          .product(name: "WebImageRedisCache", package: "SwiftWebImage"),
                          .product(name: "WebImagePNGCoder", package: "SwiftWebImage"),
                      ],
                      path: "Sources/CacheBench", swiftSettings: swiftSettings),
]

let package = Package(
    name: "SwiftWebImageBenchmarks",
    platforms: [.macOS(.v15)],
    products: products,
    dependencies: dependencies,
    targets: targets
)
