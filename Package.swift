// swift-tools-version:6.0
import PackageDescription

/// Swift 6 language mode everywhere; strict concurrency is part of it.
let swiftSettings: [SwiftSetting] = [.swiftLanguageMode(.v6)]

// The sections below follow the architecture, each depending only on sections above it: Core, loaders,
// coders, caches, transformers and colour management, the umbrella module, the tools and examples, test
// support, and the tests. A user depends on the products they need; the C libraries are linked only by
// the plugins that use them.

// MARK: - Package dependencies

var dependencies: [Package.Dependency] = [
    // Observability: swift-log, swift-metrics and swift-distributed-tracing are the server-side Swift APIs;
    // with no backend bootstrapped by the application they cost next to nothing.
    .package(url: "https://github.com/apple/swift-log.git", from: "1.6.0"),
    .package(url: "https://github.com/apple/swift-metrics.git", from: "2.5.0"),
    .package(url: "https://github.com/apple/swift-distributed-tracing.git", from: "1.1.0"),
    // `swift package generate-documentation` (scripts/checks/docs); a plugin, so no product links it.
    .package(url: "https://github.com/swiftlang/swift-docc-plugin.git", from: "1.4.0"),
    // The `webimage` command's arguments.
    .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.5.0"),
]

/// What every plugin records through: a `Logger` it takes at init, metrics by name.
let pluginObservability: [Target.Dependency] = [
    .product(name: "Logging", package: "swift-log"),
    .product(name: "Metrics", package: "swift-metrics"),
]
/// The recording backends the tests bootstrap once per test process (`TestBackends` in Tests/Support).
let testBackends: [Target.Dependency] = [
    .product(name: "MetricsTestKit", package: "swift-metrics"),
    .product(name: "InMemoryTracing", package: "swift-distributed-tracing"),
]

var products: [Product] = []
var targets: [Target] = []

// MARK: - Core

products += [.library(name: "WebImageCore", targets: ["WebImageCore"])]
targets += [
    // The fixed-point resampler's inner loops in AVX2, chosen at run time (the package itself compiles
    // for x86-64's SSE2 baseline); plain C, no library.
    .target(name: "CResamplingKernels", path: "Sources/CLibraries/CResamplingKernels"),
    .target(
        name: "WebImageCore",
        dependencies: [
            "CResamplingKernels",
            .product(name: "Logging", package: "swift-log"),
            .product(name: "Metrics", package: "swift-metrics"),
            .product(name: "Tracing", package: "swift-distributed-tracing"),
        ],
        path: "Sources/Core", swiftSettings: swiftSettings),
]

// MARK: - Loaders

products += [
    .library(name: "WebImageFileLoader", targets: ["WebImageFileLoader"]),
    .library(name: "WebImageHTTPLoader", targets: ["WebImageHTTPLoader"]),
]
targets += [
    .target(
        name: "WebImageFileLoader", dependencies: ["WebImageCore"] + pluginObservability,
        path: "Sources/Loaders/File", swiftSettings: swiftSettings),
    // libcurl: the variadic setopt/getinfo calls need typed C wrappers.
    .target(name: "CCurl", path: "Sources/CLibraries/CCurl", linkerSettings: [.linkedLibrary("curl")]),
    .target(
        name: "WebImageHTTPLoader", dependencies: ["WebImageCore", "CCurl"] + pluginObservability,
        path: "Sources/Loaders/HTTP", swiftSettings: swiftSettings),
]

// MARK: - Coders

products += [
    .library(name: "WebImagePNGCoder", targets: ["WebImagePNGCoder"]),
    .library(name: "WebImageJPEGCoder", targets: ["WebImageJPEGCoder"]),
    .library(name: "WebImageWebPCoder", targets: ["WebImageWebPCoder"]),
    .library(name: "WebImageGIFCoder", targets: ["WebImageGIFCoder"]),
    .library(name: "WebImageAVIFCoder", targets: ["WebImageAVIFCoder"]),
    .library(name: "WebImageHEIFCoder", targets: ["WebImageHEIFCoder"]),
    .library(name: "WebImageSVGCoder", targets: ["WebImageSVGCoder"]),
    .library(name: "WebImageJXLCoder", targets: ["WebImageJXLCoder"]),
    .library(name: "WebImageTIFFCoder", targets: ["WebImageTIFFCoder"]),
    .library(name: "WebImageBMPCoder", targets: ["WebImageBMPCoder"]),
    .library(name: "WebImageICOCoder", targets: ["WebImageICOCoder"]),
]
targets += [
    // libpng with a C shim: its progressive reader runs behind a setjmp inside the shim, so no longjmp
    // crosses a Swift frame. Encoding uses libpng's simplified API, which keeps its setjmp internal.
    .target(
        name: "CPNG", path: "Sources/CLibraries/CPNG", linkerSettings: [.linkedLibrary("png16"), .linkedLibrary("z")]),
    .target(
        name: "WebImagePNGCoder", dependencies: ["WebImageCore", "CPNG"], path: "Sources/Coders/PNG",
        swiftSettings: swiftSettings),
    // libjpeg-turbo with a C shim: error_exit longjmps only to a setjmp inside the shim.
    .target(name: "CJPEG", path: "Sources/CLibraries/CJPEG", linkerSettings: [.linkedLibrary("jpeg")]),
    .target(
        name: "WebImageJPEGCoder", dependencies: ["WebImageCore", "CJPEG"], path: "Sources/Coders/JPEG",
        swiftSettings: swiftSettings),
    .systemLibrary(
        name: "CWebP", path: "Sources/CLibraries/CWebP", pkgConfig: "libwebpdemux",
        providers: [.apt(["libwebp-dev"])]),
    .target(
        name: "WebImageWebPCoder", dependencies: ["WebImageCore", "CWebP"], path: "Sources/Coders/WebP",
        swiftSettings: swiftSettings),
    // giflib has no pkg-config file on Debian; a C target with memory I/O callbacks links it.
    .target(name: "CGIF", path: "Sources/CLibraries/CGIF", linkerSettings: [.linkedLibrary("gif")]),
    .target(
        name: "WebImageGIFCoder", dependencies: ["WebImageCore", "CGIF"], path: "Sources/Coders/GIF",
        swiftSettings: swiftSettings),
    // libavif (with dav1d/libgav1/aom decoders and aom/rav1e/SVT encoders on Debian 12).
    // No pkgConfig: libavif.pc's -DAVIF_DLL is a flag SwiftPM refuses with a warning; the headers are in
    // /usr/include and the module map links the library.
    .systemLibrary(name: "CAVIF", path: "Sources/CLibraries/CAVIF", providers: [.apt(["libavif-dev"])]),
    .target(
        name: "WebImageAVIFCoder", dependencies: ["WebImageCore", "CAVIF"], path: "Sources/Coders/AVIF",
        swiftSettings: swiftSettings),
    // libheif (libde265 decodes HEVC, x265 encodes it on Debian 12).
    .systemLibrary(
        name: "CHEIF", path: "Sources/CLibraries/CHEIF", pkgConfig: "libheif",
        providers: [.apt(["libheif-dev"])]),
    .target(
        name: "WebImageHEIFCoder", dependencies: ["WebImageCore", "CHEIF"], path: "Sources/Coders/HEIF",
        swiftSettings: swiftSettings),
    // librsvg and cairo. No pkgConfig: librsvg-2.0.pc's flags include -pthread, which SwiftPM refuses, and
    // GLib's headers sit under an architecture directory; CSVG.c declares the few functions it calls.
    .target(
        name: "CSVG", path: "Sources/CLibraries/CSVG",
        linkerSettings: [
            .linkedLibrary("rsvg-2"), .linkedLibrary("cairo"), .linkedLibrary("gobject-2.0"),
            .linkedLibrary("glib-2.0"),
        ]),
    .target(
        name: "WebImageSVGCoder", dependencies: ["WebImageCore", "CSVG"], path: "Sources/Coders/SVG",
        swiftSettings: swiftSettings),
    // libjxl and its thread runner. No pkgConfig: libjxl.pc's -DHWY_SHARED_DEFINE is a flag SwiftPM refuses.
    .systemLibrary(name: "CJXL", path: "Sources/CLibraries/CJXL", providers: [.apt(["libjxl-dev"])]),
    .target(
        name: "WebImageJXLCoder", dependencies: ["WebImageCore", "CJXL"], path: "Sources/Coders/JXL",
        swiftSettings: swiftSettings),
    // libtiff (Debian's libtiff-dev) with a C shim: memory I/O callbacks, per-handle error handlers and
    // libtiff's allocation cap, set for each open.
    .target(name: "CTIFF", path: "Sources/CLibraries/CTIFF", linkerSettings: [.linkedLibrary("tiff")]),
    .target(
        name: "WebImageTIFFCoder", dependencies: ["WebImageCore", "CTIFF"], path: "Sources/Coders/TIFF",
        swiftSettings: swiftSettings),
    // BMP in Swift, no C library; its DIB reader is shared (package access) with the ICO coder.
    .target(
        name: "WebImageBMPCoder", dependencies: ["WebImageCore"], path: "Sources/Coders/BMP",
        swiftSettings: swiftSettings),
    // ICO and CUR in Swift: entries are BMP (the DIB reader above) or PNG (PNGCoder).
    .target(
        name: "WebImageICOCoder", dependencies: ["WebImageCore", "WebImageBMPCoder", "WebImagePNGCoder"],
        path: "Sources/Coders/ICO", swiftSettings: swiftSettings),
]

// MARK: - Caches

products += [
    .library(name: "WebImageMemoryCache", targets: ["WebImageMemoryCache"]),
    .library(name: "WebImageDiskCache", targets: ["WebImageDiskCache"]),
    .library(name: "WebImageRedisCache", targets: ["WebImageRedisCache"]),
]
targets += [
    .target(
        name: "WebImageMemoryCache", dependencies: ["WebImageCore"] + pluginObservability,
        path: "Sources/Caches/Memory", swiftSettings: swiftSettings),
    // SHA-256 for cache file names from the system's OpenSSL libcrypto: already on every machine that
    // builds the HTTP loader (libcurl's TLS), so it costs no build time, unlike compiling swift-crypto.
    .systemLibrary(
        name: "CCrypto", path: "Sources/CLibraries/CCrypto", pkgConfig: "libcrypto",
        providers: [.apt(["libssl-dev"])]),
    // Extended attributes and the futimens special values, which Glibc's module lacks (libc itself).
    .systemLibrary(name: "CFileSystem", path: "Sources/CLibraries/CFileSystem"),
    // The disk cache, and the two-level image cache whose convenience init uses both default storages.
    .target(
        name: "WebImageDiskCache",
        dependencies: ["WebImageCore", "WebImageMemoryCache", "CCrypto", "CFileSystem"] + pluginObservability,
        path: "Sources/Caches/Disk", swiftSettings: swiftSettings),
    // hiredis 0.14 (Debian's libhiredis-dev) with a C shim for deadline-bounded non-blocking I/O, and
    // zlib's crc32 for the checksum stored with each value.
    .target(
        name: "CRedis", path: "Sources/CLibraries/CRedis",
        linkerSettings: [.linkedLibrary("hiredis"), .linkedLibrary("z")]),
    .target(
        name: "WebImageRedisCache",
        dependencies: ["WebImageCore", "WebImageMemoryCache", "WebImageDiskCache", "CRedis"] + pluginObservability,
        path: "Sources/Caches/Redis", swiftSettings: swiftSettings),
]

// MARK: - Transformers and colour management

products += [
    .library(name: "WebImageTransformers", targets: ["WebImageTransformers"]),
    .library(name: "WebImageColorManagement", targets: ["WebImageColorManagement"]),
]
targets += [
    // Resize, crop, geometry, filters and the processing-option text form; pure Swift on Core's pixels.
    // pixman: arbitrary-angle rotation (SIMD bilinear); measured in Benchmarks' geometry-bench.
    .systemLibrary(
        name: "CPixman", path: "Sources/CLibraries/CPixman", pkgConfig: "pixman-1",
        providers: [.apt(["libpixman-1-dev"])]),
    .target(
        name: "WebImageTransformers", dependencies: ["WebImageCore", "CPixman"], path: "Sources/Transformers",
        swiftSettings: swiftSettings),
    // Little CMS 2 (Debian liblcms2-dev): ICC profiles read from memory, transforms to sRGB.
    .systemLibrary(
        name: "CLCMS2", path: "Sources/CLibraries/CLCMS2", pkgConfig: "lcms2",
        providers: [.apt(["liblcms2-dev"])]),
    // Converts images with an embedded ICC profile to sRGB (Core's ColorProfileConverter seam);
    // animations frame by frame through Core's FrameTransformer.
    .target(
        name: "WebImageColorManagement", dependencies: ["WebImageCore", "CLCMS2"],
        path: "Sources/ColorManagement", swiftSettings: swiftSettings),
]

// MARK: - Umbrella module

products += [.library(name: "WebImage", targets: ["WebImage"])]
targets += [
    .target(
        name: "WebImage",
        dependencies: [
            "WebImageCore", "WebImageFileLoader", "WebImageHTTPLoader", "WebImagePNGCoder",
            "WebImageJPEGCoder", "WebImageWebPCoder", "WebImageGIFCoder", "WebImageAVIFCoder",
            "WebImageHEIFCoder", "WebImageJXLCoder", "WebImageTIFFCoder", "WebImageBMPCoder",
            "WebImageICOCoder", "WebImageMemoryCache",
            "WebImageDiskCache", "WebImageColorManagement",
        ],
        path: "Sources/WebImage", swiftSettings: swiftSettings)
]

// MARK: - Tools and examples

targets += [
    // `webimage cache info` shows the Redis tier when one is configured.
    .executableTarget(
        name: "webimage",
        dependencies: [
            "WebImage", "LoopbackHTTPServer", "WebImageTransformers", "WebImageRedisCache",
            .product(name: "ArgumentParser", package: "swift-argument-parser"),
        ],
        path: "Examples/WebImageCLI", swiftSettings: swiftSettings),
    .executableTarget(
        name: "TerminalGallery", dependencies: ["WebImage"],
        path: "Examples/TerminalGallery", swiftSettings: swiftSettings),
    .executableTarget(
        name: "CustomCoder",
        dependencies: ["WebImageCore", "WebImageFileLoader", "WebImageMemoryCache"],
        path: "Examples/CustomCoder", swiftSettings: swiftSettings),
    .executableTarget(
        name: "CustomLoader", dependencies: ["WebImageCore", "WebImageMemoryCache"],
        path: "Examples/CustomLoader", swiftSettings: swiftSettings),
]

// MARK: - Test support

products += [
    .library(name: "WebImageTesting", targets: ["WebImageTesting"]),
    // For tests only, and said so by its name: the loopback servers and sockets, child processes
    // (redis-server), gates, polling and fixtures that the tests of this package, of the image server
    // (Examples/ImageServer) and the benchmarks (Benchmarks/) share. No SwiftNIO, nothing heavy.
    .library(name: "WebImageTestSupport", targets: ["WebImageTestSupport", "LoopbackHTTPServer"]),
]
targets += [
    // Contract checks for plugin authors (coders, loaders, caches); the project's plugins run them too.
    .target(
        name: "WebImageTesting", dependencies: ["WebImageCore"], path: "Sources/Testing",
        swiftSettings: swiftSettings),
    // Fixtures, corpus access and helpers shared by every test target.
    .target(
        name: "WebImageTestSupport",
        dependencies: [
            "WebImageCore", "LoopbackHTTPServer",
            .product(name: "Tracing", package: "swift-distributed-tracing"),
        ]
            + pluginObservability + testBackends,
        path: "Tests/Support", swiftSettings: swiftSettings),
    // A real HTTP/1.1 server on 127.0.0.1 with fault injection, for tests and the demo. Not a product.
    .target(
        name: "LoopbackHTTPServer", dependencies: ["WebImageCore"], path: "Sources/Support/LoopbackHTTPServer",
        swiftSettings: swiftSettings),
    // Tests only: a TLS front (libssl) for the loopback server, and zlib for gzip/deflate bodies and bombs.
    .target(
        name: "CHTTPTestSupport", path: "Tests/CHTTPTestSupport",
        linkerSettings: [.linkedLibrary("ssl"), .linkedLibrary("crypto"), .linkedLibrary("z")]),
    // Not a product: writes the hostile files of Tests/Support for scripts/bench/hostile-bench.
    .executableTarget(
        name: "hostile-files", dependencies: ["WebImageTestSupport"],
        path: "Tests/HostileFilesTool", swiftSettings: swiftSettings),
    // Not a product: a second process for the shared-directory tests.
    .executableTarget(
        name: "disk-cache-stress", dependencies: ["WebImageDiskCache", "WebImageTestSupport"],
        path: "Tests/DiskCacheStress", swiftSettings: swiftSettings),
]

// MARK: - Tests

targets += [
    .testTarget(
        name: "WebImageCoreTests",
        dependencies: ["WebImageCore", "WebImageTestSupport", "WebImageTesting"] + testBackends,
        path: "Tests/CoreTests", swiftSettings: swiftSettings),
    .testTarget(
        name: "WebImageFileLoaderTests",
        dependencies: ["WebImageTesting", "WebImageFileLoader", "WebImageTestSupport"] + testBackends,
        path: "Tests/FileLoaderTests", swiftSettings: swiftSettings),
    .testTarget(
        name: "WebImageHTTPLoaderTests",
        dependencies: [
            "WebImageTesting", "WebImageHTTPLoader", "LoopbackHTTPServer", "CHTTPTestSupport",
            "WebImageTestSupport",
        ] + testBackends,
        path: "Tests/HTTPLoaderTests", swiftSettings: swiftSettings),
    .testTarget(
        name: "WebImagePNGCoderTests", dependencies: ["WebImageTesting", "WebImagePNGCoder", "WebImageTestSupport"],
        path: "Tests/PNGCoderTests", exclude: ["png-reference.tsv"], swiftSettings: swiftSettings),
    .testTarget(
        name: "WebImageJPEGCoderTests", dependencies: ["WebImageTesting", "WebImageJPEGCoder", "WebImageTestSupport"],
        path: "Tests/JPEGCoderTests", swiftSettings: swiftSettings),
    .testTarget(
        name: "WebImageWebPCoderTests", dependencies: ["WebImageTesting", "WebImageWebPCoder", "WebImageTestSupport"],
        path: "Tests/WebPCoderTests", exclude: ["webp-reference.tsv"], swiftSettings: swiftSettings),
    .testTarget(
        name: "WebImageGIFCoderTests", dependencies: ["WebImageTesting", "WebImageGIFCoder", "WebImageTestSupport"],
        path: "Tests/GIFCoderTests", exclude: ["gif-reference.tsv"], swiftSettings: swiftSettings),
    // The tests make files with avifenc/heif-enc and compare with avifdec/heif-convert's PNGs, read by PNGCoder.
    .testTarget(
        name: "WebImageAVIFCoderTests",
        dependencies: ["WebImageTesting", "WebImageAVIFCoder", "WebImagePNGCoder", "WebImageTestSupport"],
        path: "Tests/AVIFCoderTests", swiftSettings: swiftSettings),
    .testTarget(
        name: "WebImageHEIFCoderTests",
        dependencies: ["WebImageTesting", "WebImageHEIFCoder", "WebImagePNGCoder", "WebImageTestSupport"],
        path: "Tests/HEIFCoderTests", swiftSettings: swiftSettings),
    // The tests compare with rsvg-convert's PNGs, read by PNGCoder.
    .testTarget(
        name: "WebImageSVGCoderTests",
        dependencies: ["WebImageTesting", "WebImageSVGCoder", "WebImagePNGCoder", "WebImageTestSupport"],
        path: "Tests/SVGCoderTests", swiftSettings: swiftSettings),
    // The tests make files with cjxl and compare with djxl's PNGs, read by PNGCoder.
    .testTarget(
        name: "WebImageJXLCoderTests",
        dependencies: [
            "WebImageTesting", "WebImageJXLCoder", "WebImagePNGCoder", "WebImageJPEGCoder", "WebImageTestSupport",
        ],
        path: "Tests/JXLCoderTests", swiftSettings: swiftSettings),
    // The tests compare with Pillow's pixels: scripts/reference/tiff-bmp-ico-reference.py writes the fixtures and reference PNGs.
    .testTarget(
        name: "WebImageTIFFCoderTests",
        dependencies: ["WebImageTesting", "WebImageTIFFCoder", "WebImagePNGCoder", "WebImageTestSupport"],
        path: "Tests/TIFFCoderTests", exclude: ["Fixtures"], swiftSettings: swiftSettings),
    .testTarget(
        name: "WebImageBMPCoderTests",
        dependencies: ["WebImageTesting", "WebImageBMPCoder", "WebImagePNGCoder", "WebImageTestSupport"],
        path: "Tests/BMPCoderTests", exclude: ["Fixtures"], swiftSettings: swiftSettings),
    .testTarget(
        name: "WebImageICOCoderTests",
        dependencies: [
            "WebImageTesting", "WebImageICOCoder", "WebImageBMPCoder", "WebImagePNGCoder", "WebImageTestSupport",
        ],
        path: "Tests/ICOCoderTests", exclude: ["Fixtures"], swiftSettings: swiftSettings),
    .testTarget(
        name: "WebImageMemoryCacheTests", dependencies: ["WebImageMemoryCache", "WebImageTestSupport"] + testBackends,
        path: "Tests/MemoryCacheTests", swiftSettings: swiftSettings),
    .testTarget(
        name: "WebImageDiskCacheTests",
        dependencies: [
            "WebImageTesting", "WebImageDiskCache", "WebImageMemoryCache", "WebImageTestSupport", "disk-cache-stress",
        ] + testBackends,
        path: "Tests/DiskCacheTests", swiftSettings: swiftSettings),
    .testTarget(
        name: "WebImageRedisCacheTests",
        dependencies: [
            "WebImageTesting", "WebImageRedisCache", "WebImageHTTPLoader", "WebImagePNGCoder", "LoopbackHTTPServer",
            "WebImageTestSupport", "CRedis",
        ],
        path: "Tests/RedisCacheTests", swiftSettings: swiftSettings),
    .testTarget(
        name: "WebImageTransformersTests", dependencies: ["WebImageTransformers", "WebImageTestSupport"],
        path: "Tests/TransformersTests",
        exclude: ["filter-reference.tsv", "geometry-reference.tsv", "resample-reference.tsv"],
        swiftSettings: swiftSettings),
    .testTarget(
        name: "WebImageColorManagementTests",
        dependencies: [
            "WebImageColorManagement", "CLCMS2", "WebImageJPEGCoder", "WebImagePNGCoder",
            "WebImageWebPCoder", "WebImage", "WebImageTestSupport",
        ],
        path: "Tests/ColorManagementTests", exclude: ["color-reference.tsv", "cmyk-tiles.jpg", "Profiles"],
        swiftSettings: swiftSettings),
    .testTarget(
        name: "WebImageIntegrationTests",
        dependencies: [
            "WebImage", "LoopbackHTTPServer", "WebImageTestSupport", "WebImageTransformers",
            "webimage", "CustomCoder", "CustomLoader", "TerminalGallery",
        ],
        path: "Tests/IntegrationTests", swiftSettings: swiftSettings),
    // README.md's code blocks, extracted by scripts/checks/readme-snippets: compiled by every test build.
    .testTarget(
        name: "ReadmeSnippets",
        dependencies: ["WebImage", "WebImageTesting", "WebImageTransformers", "WebImageRedisCache"],
        path: "Tests/ReadmeSnippets", swiftSettings: swiftSettings),
]

let package = Package(
    name: "SwiftWebImage",
    platforms: [.macOS(.v15)],
    products: products,
    dependencies: dependencies,
    targets: targets
)
