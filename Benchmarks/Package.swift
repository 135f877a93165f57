// swift-tools-version:6.0
// Benchmarks live in their own package so CI never builds their dependencies.
// Run from this folder: `swift run -c release png-bench` (jpeg-bench, webp-bench, gif-bench, http-bench, cache-bench).
import PackageDescription

let swiftSettings: [SwiftSetting] = [.swiftLanguageMode(.v6)]

var dependencies: [Package.Dependency] = [
    .package(name: "SwiftWebImage", path: ".."),
]
var targets: [Target] = []
var products: [Product] = []

// MARK: - PNG coder bench (issue 3)

// (png-bench: products/targets added here)

// MARK: - JPEG coder bench (issue 3)

// (jpeg-bench: products/targets added here)

// MARK: - WebP coder bench (issue 4)

// (webp-bench: products/targets added here)

// MARK: - GIF coder bench (issue 4)

// (gif-bench: products/targets added here)

// MARK: - HTTP loader (issue 5)

// (http-bench: dependencies/products/targets added here)

// MARK: - Caches (issue 6)

// (cache-bench: products/targets added here)

let package = Package(
    name: "SwiftWebImageBenchmarks",
    platforms: [.macOS(.v15)],
    products: products,
    dependencies: dependencies,
    targets: targets
)
