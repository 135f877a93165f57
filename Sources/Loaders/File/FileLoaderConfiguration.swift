import Foundation

/// The settings of a ``FileLoader``.
public struct FileLoaderConfiguration: Sendable {
    /// Directories the loader may read under (after resolving symbolic links); empty allows every
    /// path. Empty by default.
    public var allowedRoots: [URL] = []
    /// Bytes read per chunk, and so between progress reports: 256 KB by default, a few disk
    /// read-aheads, small enough that cancellation is prompt.
    public var chunkSize = 256 * 1024
    /// Files bigger than this fail with `.fileIO` naming this limit, before any byte is read (a file that
    /// grows past it while being read fails the same way); a file of exactly this size loads. 256 MB by default.
    public var maxFileSize = 256 * 1024 * 1024
    /// When set, the loader also takes `local://` URLs, imgproxy's local sources: `local:///a/b.jpg`
    /// is the file `a/b.jpg` under this directory, and nothing outside it (after resolving symbolic
    /// links and `..`), whatever ``allowedRoots`` says. Nil by default.
    public var localRoot: URL?
    /// The defaults: any readable file, up to the default size limit.
    public init() {}
}
