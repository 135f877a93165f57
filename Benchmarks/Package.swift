// swift-tools-version:6.0
// Benchmarks live in their own package so CI never builds their dependencies.
// Run from this folder: `swift run -c release coder-bench` (also http-bench, cache-bench).
import PackageDescription

let swiftSettings: [SwiftSetting] = [.swiftLanguageMode(.v6)]

// The sections follow the framework's architecture: what the benchmarks share, then coders, the HTTP
// loader, caches, transformers and colour management.

var dependencies: [Package.Dependency] = [
    .package(name: "SwiftWebImage", path: ".."),
    // The HTTP loader's peers.
    .package(url: "https://github.com/swift-server/async-http-client.git", from: "1.37.0"),
    .package(url: "https://github.com/apple/swift-nio.git", from: "2.0.0"),
]
var targets: [Target] = []
var products: [Product] = []

// MARK: - Shared

targets += [
    // The corpus photos and the 12 MP pictures tiled from them, shared by coder-bench and transform-bench.
    .target(
        name: "CorpusPhotos", dependencies: [.product(name: "WebImage", package: "SwiftWebImage")],
        path: "Sources/CorpusPhotos", swiftSettings: swiftSettings)
]

// MARK: - Coders (issues 3 and 4; AVIF and HEIF: issue 17)

products += [.executable(name: "coder-bench", targets: ["CoderBench"])]
targets += [
    // libjpeg-turbo (TurboJPEG API), libpng and libwebp called directly: the baseline.
    .systemLibrary(name: "CRawCodecs", path: "Sources/CRawCodecs"),
    // giflib plus a plain-C compositor: the baseline for decoding every frame of an animated GIF.
    .target(
        name: "CRawGIF", path: "Sources/CRawGIF",
        linkerSettings: [.linkedLibrary("gif")]),
    // libavif, libheif and libjxl called directly, for `coder-bench avif-heif`.
    .systemLibrary(name: "CRawAVIFHEIF", path: "Sources/CRawAVIFHEIF"),
    .executableTarget(
        name: "CoderBench",
        dependencies: [
            "CRawCodecs", "CRawGIF", "CRawAVIFHEIF", "CorpusPhotos",
            .product(name: "WebImage", package: "SwiftWebImage"),
        ],
        path: "Sources/CoderBench", swiftSettings: swiftSettings),
]

// MARK: - HTTP loader (issue 5)

products += [
    .executable(name: "http-bench", targets: ["HTTPBench"])
]
targets += [
    // Our loader vs URLSession vs AsyncHTTPClient vs `curl -Z`, against a local nginx.
    .executableTarget(
        name: "HTTPBench",
        dependencies: [
            .product(name: "WebImageHTTPLoader", package: "SwiftWebImage"),
            .product(name: "WebImageTestSupport", package: "SwiftWebImage"),
            .product(name: "AsyncHTTPClient", package: "async-http-client"),
            .product(name: "NIOCore", package: "swift-nio"),
        ],
        path: "Sources/HTTPBench", swiftSettings: swiftSettings)
]

// MARK: - Caches (issue 6; the Redis tier rows: issue 15)

products += [
    .executable(name: "cache-bench", targets: ["cache-bench"])
]
targets += [
    // Disk cache vs plain POSIX file I/O, memory cache vs Foundation's NSCache, side by side in one run.
    .executableTarget(
        name: "cache-bench",
        dependencies: [
            .product(name: "WebImageCore", package: "SwiftWebImage"),
            .product(name: "WebImageMemoryCache", package: "SwiftWebImage"),
            .product(name: "WebImageDiskCache", package: "SwiftWebImage"),
            .product(name: "WebImageRedisCache", package: "SwiftWebImage"),
            .product(name: "WebImagePNGCoder", package: "SwiftWebImage"),
            // redis-server and child processes, as the tests start them.
            .product(name: "WebImageTestSupport", package: "SwiftWebImage"),
        ],
        path: "Sources/CacheBench", swiftSettings: swiftSettings)
]

// MARK: - Transformers (issue 13)

products += [.executable(name: "transform-bench", targets: ["TransformBench"])]
targets += [
    // 256 px thumbnails and a 25 % Lanczos3 resize of 12 MP photos; scripts/bench/transform-bench runs the
    // libvips and Pillow peers on the same files and prints the table.
    .executableTarget(
        name: "TransformBench",
        dependencies: ["CorpusPhotos", .product(name: "WebImage", package: "SwiftWebImage")],
        path: "Sources/TransformBench", swiftSettings: swiftSettings)
]
// The thumbnail batch as a JPEG-only app would run it (issue 26 item 3): one process for a batch of
// files, linked with the JPEG coder and Core only, so its start-up loads what a thumbnailer needs (the
// umbrella `WebImage` loads every codec library: AVIF, HEIF, JXL, curl, ...). transform-bench times it.
products += [.executable(name: "thumbnail-batch", targets: ["ThumbnailBatch"])]
targets += [
    .executableTarget(
        name: "ThumbnailBatch",
        dependencies: [
            .product(name: "WebImageJPEGCoder", package: "SwiftWebImage"),
            .product(name: "WebImageCore", package: "SwiftWebImage"),
        ],
        path: "Sources/ThumbnailBatch", swiftSettings: swiftSettings)
]

// MARK: - Resampler (issue 26)

products += [.executable(name: "resample-bench", targets: ["ResampleBench"])]
targets += [
    // Lanczos3 12 MP -> 256 px and 2 MP -> 800 px, RGB and RGBA: the fixed-point engine, the Float engine
    // and Pillow (scripts/bench/resample-bench-peer.py in a child), side by side.
    .executableTarget(
        name: "ResampleBench",
        dependencies: ["CorpusPhotos", .product(name: "WebImageCore", package: "SwiftWebImage")],
        path: "Sources/ResampleBench", swiftSettings: swiftSettings)
]

// MARK: - Geometry transformers (issue 13)

products += [.executable(name: "geometry-bench", targets: ["GeometryBench"])]
targets += [
    // pixman (Debian libpixman-1-dev), the C library our rotation and compositing are measured against.
    .systemLibrary(name: "CPixmanBench", path: "Sources/CPixmanBench", pkgConfig: "pixman-1"),
    .executableTarget(
        name: "GeometryBench",
        dependencies: ["CPixmanBench", .product(name: "WebImageTransformers", package: "SwiftWebImage")],
        path: "Sources/GeometryBench", swiftSettings: swiftSettings),
]

// MARK: - Filters (issue 13)

products += [.executable(name: "blur-bench", targets: ["BlurBench"])]
targets += [
    // BlurTransformer and SharpenTransformer vs libvips gaussblur (pyvips and the vips command) and Pillow.
    .executableTarget(
        name: "BlurBench",
        dependencies: [.product(name: "WebImageTransformers", package: "SwiftWebImage")],
        path: "Sources/BlurBench", swiftSettings: swiftSettings)
]

// MARK: - Colour management (issue 13)

products += [.executable(name: "icc-bench", targets: ["IccBench"])]
targets += [
    // A 12 MP Display P3 JPEG to sRGB: JPEGCoder + LittleCMSConverter vs lcms2's `jpgicc`.
    .executableTarget(
        name: "IccBench", dependencies: [.product(name: "WebImage", package: "SwiftWebImage")],
        path: "Sources/IccBench", swiftSettings: swiftSettings)
]

let package = Package(
    name: "SwiftWebImageBenchmarks",
    platforms: [.macOS(.v15)],
    products: products,
    dependencies: dependencies,
    targets: targets
)
