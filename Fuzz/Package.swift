// swift-tools-version:6.0
import Foundation
import PackageDescription

// libFuzzer harnesses for the coders and the Redis reply reader, in their own package so that library users and the main package's
// builds never compile them. `scripts/checks/fuzz` builds this package with `--sanitize fuzzer --sanitize address`.

/// The main package is the folder above; a path dependency is known by its folder's name, which depends
/// on where the repository is checked out (a worktree, a CI clone), so it is computed here.
let mainPackageFolder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
let mainPackage = mainPackageFolder.lastPathComponent

let package = Package(
    name: "WebImageFuzz",
    platforms: [.macOS(.v15)],
    dependencies: [.package(path: mainPackageFolder.path)],
    targets: [
        // One binary for every harness: `WEBIMAGE_FUZZ_HARNESS` picks which one runs, so a build links once.
        // `-parse-as-library`: libFuzzer supplies `main`, the harness only `LLVMFuzzerTestOneInput`.
        .executableTarget(
            name: "webimage-fuzz",
            dependencies: [
                .product(name: "WebImageCore", package: mainPackage),
                .product(name: "WebImagePNGCoder", package: mainPackage),
                .product(name: "WebImageJPEGCoder", package: mainPackage),
                .product(name: "WebImageWebPCoder", package: mainPackage),
                .product(name: "WebImageGIFCoder", package: mainPackage),
                .product(name: "WebImageTIFFCoder", package: mainPackage),
                .product(name: "WebImageBMPCoder", package: mainPackage),
                .product(name: "WebImageICOCoder", package: mainPackage),
                .product(name: "WebImageRedisCache", package: mainPackage),
            ],
            path: "Sources/webimage-fuzz",
            swiftSettings: [.swiftLanguageMode(.v6), .unsafeFlags(["-parse-as-library"])]
        )
    ]
)
