import Foundation
import Logging
import WebImageCore

#if canImport(Glibc)
import Glibc
#endif

/// Reads one file in chunks with POSIX calls, checking the allowed roots and the size limit first.
struct FileReader: Sendable {
    let path: String
    let configuration: FileLoaderConfiguration
    let operation: FileReadOperation
    let progress: LoadProgressHandler?
    let decoder: DecoderBox?
    /// The request's logger, else the loader's.
    let logger: Logger

    func read() -> Result<LoadedImage, ImageError> {
        do {
            return .success(try readFile())
        } catch {
            return .failure(error)
        }
    }

    private func readFile() throws(ImageError) -> LoadedImage {
        let resolved = try resolvedPath()
        let fd = open(resolved, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw failure(errno) }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw failure(errno) }
        if (info.st_mode & S_IFMT) == S_IFDIR { throw .fileIO(path: path, reason: "is a directory") }
        guard (info.st_mode & S_IFMT) == S_IFREG else { throw .fileIO(path: path, reason: "is not a regular file") }
        let size = Int(info.st_size)
        let limit = configuration.maxFileSize
        if size > limit { throw overLimit("is \(size) bytes") }

        var data = Data(count: size)
        var received = 0
        let chunk = max(4096, configuration.chunkSize)
        while true {
            if operation.isCancelled { throw .cancelled }
            // Grow when the file grew after fstat, up to the limit. A full buffer at the limit reads one
            // byte more: none means the file is exactly at the limit, which is allowed.
            if received == data.count {
                if data.count >= limit {
                    var probe: UInt8 = 0
                    let extra = Glibc.read(fd, &probe, 1)
                    if extra < 0 && errno == EINTR { continue }
                    if extra < 0 { throw failure(errno) }
                    if extra == 0 { break }
                    throw overLimit("grew past \(limit) bytes while being read")
                }
                data.count = min(limit, data.count + chunk)
            }
            let want = min(chunk, data.count - received)
            let got = data.withUnsafeMutableBytes { raw in
                Glibc.read(fd, raw.baseAddress! + received, want)
            }
            if got < 0 {
                if errno == EINTR { continue }
                throw failure(errno)
            }
            if got == 0 { break }
            if let decoder {
                try decoder.decoder.append(data.subdata(in: received..<(received + got)))
            }
            received += got
            progress?(
                LoadProgress(
                    receivedBytes: Int64(received), expectedBytes: Int64(size),
                    partialImage: decoder?.decoder.partialImage()))
        }
        data.count = received
        let image = try decoder.map { box throws(ImageError) in try box.decoder.finish() }
        return LoadedImage(data: data, image: image, response: nil)
    }

    /// The real path, after checking it lies under an allowed root.
    private func resolvedPath() throws(ImageError) -> String {
        guard !path.isEmpty else { throw .invalidURL("empty file path") }
        guard let real = realpath(path, nil) else { throw failure(errno) }
        defer { free(real) }
        let resolved = String(cString: real)
        if !configuration.allowedRoots.isEmpty {
            let allowed = configuration.allowedRoots.contains { root in
                guard let rootReal = realpath(root.path, nil) else { return false }
                defer { free(rootReal) }
                let rootPath = String(cString: rootReal)
                let prefix = rootPath.hasSuffix("/") ? rootPath : rootPath + "/"
                return resolved == rootPath || resolved.hasPrefix(prefix)
            }
            if !allowed {
                logger.debug(
                    "read refused: outside the allowed roots", metadata: ["path": "\(path)", "resolved": "\(resolved)"])
                throw .fileIO(path: path, reason: "outside the loader's allowed directories")
            }
        }
        return resolved
    }

    /// The file is larger than ``FileLoaderConfiguration/maxFileSize``; `what` says by how much.
    private func overLimit(_ what: String) -> ImageError {
        logger.debug(
            "read refused: over the size limit",
            metadata: [
                "path": "\(path)", "size": "\(what)", "limit": "\(configuration.maxFileSize)",
            ])
        return .fileIO(
            path: path, reason: "\(what), over the file loader's maxFileSize of \(configuration.maxFileSize) bytes")
    }

    private func failure(_ code: Int32) -> ImageError {
        switch code {
        case ENOENT: .fileIO(path: path, reason: "no such file")
        case EACCES, EPERM: .fileIO(path: path, reason: "permission denied")
        case EISDIR: .fileIO(path: path, reason: "is a directory")
        default: .fileIO(path: path, reason: String(cString: strerror(code)))
        }
    }
}
