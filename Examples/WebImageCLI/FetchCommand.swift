import ArgumentParser
import Foundation
import WebImage

/// `webimage fetch URL...`: load through the shared manager, print the table, write outputs.
struct FetchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "fetch", abstract: "Load images by URL through the shared manager.")

    enum OutputFormat: String, ExpressibleByArgument, CaseIterable {
        case png, jpeg, webp, gif, avif, heic, jxl
        var imageFormat: ImageFormat {
            switch self {
            case .png: .png
            case .jpeg: .jpeg
            case .webp: .webp
            case .gif: .gif
            case .avif: .avif
            case .heic: .heic
            case .jxl: .jpegXL
            }
        }
    }

    @Argument(help: "http(s) or file URLs, or paths of local files.")
    var urls: [String]

    @Option(help: "Decode as a thumbnail fitting in N x N pixels.")
    var thumbnail: Int?

    @Option(help: "Re-encode the results in this format (png, jpeg, webp, gif, avif, heic, jxl).")
    var format: OutputFormat?

    @Option(help: "Lossy quality for --format, 0 to 100.")
    var quality: Double = 90

    @Option(help: "Folder to write the results to.")
    var output: String?

    @Flag(help: "Neither read nor write the cache.")
    var noCache = false

    @Flag(help: "Revalidate cached images with the server.")
    var refresh = false

    func run() async throws {
        var parsed: [URL] = []
        for text in urls {
            do { parsed.append(try URLArgument.parse(text)) } catch {
                Console.error(Console.describe(error))
                throw ExitCode.validationFailure
            }
        }
        var options: ImageOptions = [.waitStoreCache, .retryFailed]
        var context = ImageContext()
        if let thumbnail { context.thumbnailPixelSize = PixelSize(thumbnail) }
        if noCache {
            options.insert(.fromLoaderOnly)
            context.storeCacheType = .none
            context.originalStoreCacheType = .none
        }
        if refresh { options.insert(.refreshCached) }

        var rows: [LoadRow] = []
        var failures = 0
        for url in parsed {
            let (result, ms) = await timedLoad(WebImage.shared, url, options: options, context: context)
            // The row is made after writing: a damaged frame found while encoding lowers the frame count.
            defer { rows.append(LoadRow(url: url, result: result, milliseconds: ms)) }
            switch result {
            case .failure(let error):
                failures += 1
                Console.error("\(url.absoluteString): \(error)")
            case .success(let loaded):
                guard let output else { break }
                // One image that cannot be written (a frame over budget, a full disk) is reported on its own
                // line; the other URLs are still processed.
                do {
                    try write(loaded, to: URL(fileURLWithPath: output))
                } catch {
                    failures += 1
                    Console.error("\(url.absoluteString): cannot write: \(Console.describe(error))")
                }
            }
        }
        print(ResultTable.render(rows), terminator: "")
        if failures > 0 { throw ExitCode.failure }
    }

    private func write(_ loaded: ImageLoadResult, to folder: URL) throws {
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let base = (loaded.url.lastPathComponent as NSString).deletingPathExtension
        let target = format?.imageFormat ?? (loaded.image.format == .undefined ? .png : loaded.image.format)
        let data: Data
        if format == nil, thumbnail == nil, let original = loaded.data {
            data = original
        } else {
            data = try ImageCodersManager.shared.encode(loaded.image, as: target,
                                                       options: EncodeOptions(quality: quality / 100))
        }
        let name = (base.isEmpty ? "image" : base) + "." + (target.fileExtension ?? target.identifier)
        try data.write(to: folder.appendingPathComponent(name))
    }
}
