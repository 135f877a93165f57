// swift-tools-version:6.0
// Benchmarks live in their own package so CI never builds their dependencies.
// Run from this folder: `swift run -c release coder-bench`, `http-bench`, `cache-bench`.
import PackageDescription

let swiftSettings: [SwiftSetting] = [.swiftLanguageMode(.v6)]

var dependencies: [Package.Dependency] = [
    .package(name: "SwiftWebImage", path: ".."),
]
var targets: [Target] = []
var products: [Product] = []

// MARK: - Coders (issues 3 and 4)

// (coder-bench: products/targets added here)

// MARK: - HTTP loader (issue 5)

// (http-bench: dependencies/products/targets added here)

// MARK: - Caches (issue 6)

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
