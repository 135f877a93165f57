import Foundation

/// Paths inside this package, for tests that need files checked in under `Tests/` or `Examples/`.
public enum PackagePaths {
    /// The package's root directory.
    public static let root: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// `Tests/Resources/<name>`.
    public static func testResource(_ name: String) -> URL {
        root.appendingPathComponent("Tests/Resources").appendingPathComponent(name)
    }
}
