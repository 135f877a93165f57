import Foundation

/// The files the benchmark serves: 1,000 distinct 20 KB files and 100 distinct 1 MB files, written
/// once into a temporary web root.
struct Fixtures {
    /// One set of files of one size.
    struct FileSet {
        let name: String
        let paths: [String]
        let fileSize: Int
    }

    let root: URL
    let small: FileSet
    let large: FileSet

    init(root: URL) throws {
        self.root = root
        small = try Self.write(name: "1000 x 20 KB", folder: "small", count: 1000, size: 20 * 1024, under: root)
        large = try Self.write(name: "100 x 1 MB", folder: "large", count: 100, size: 1024 * 1024, under: root)
    }

    private static func write(name: String, folder: String, count: Int, size: Int, under root: URL) throws -> FileSet {
        let directory = root.appendingPathComponent(folder)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let random = try FileHandle(forReadingFrom: URL(fileURLWithPath: "/dev/urandom"))
        defer { try? random.close() }
        var paths: [String] = []
        for index in 0..<count {
            // Distinct random bytes per file, so nothing along the way can dedupe or compress them.
            let bytes = try random.read(upToCount: size) ?? Data()
            let file = "\(folder)/\(index).bin"
            try bytes.write(to: root.appendingPathComponent(file))
            paths.append("/" + file)
        }
        return FileSet(name: name, paths: paths, fileSize: size)
    }
}
