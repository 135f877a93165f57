import ArgumentParser
import Foundation
import WebImage
import WebImageTransformers

/// `webimage fetch URL...`: load through the shared manager, print the table, write outputs.
struct FetchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "fetch", abstract: "Load images by URL through the shared manager.")

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

    @Option(
        help: ArgumentHelp(
            "Process each image with imgproxy-style options, e.g. 'rs:fit:256:256/sh:0.5/f:webp' "
                + "(see README.md, Processing options); f: and q: choose the written format and quality.",
            valueName: "options"))
    var process: String?

    @Option(help: "Image file drawn by the wm: processing option.")
    var watermark: String?

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
        let processing: Processing?
        do {
            processing = try Processing.make(text: process, watermarkPath: watermark)
        } catch {
            Console.error(Console.describe(error))
            throw ExitCode.validationFailure
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
                // One image that cannot be processed or written (a frame over budget, a full disk) is reported
                // on its own line; the other URLs are still processed.
                let processed: Image?
                do {
                    processed = try processing.map { processing throws(ImageError) in
                        try processing.apply(to: loaded.image)
                    }
                } catch {
                    failures += 1
                    Console.error("\(url.absoluteString): cannot process: \(Console.describe(error))")
                    break
                }
                guard let output else { break }
                do {
                    try write(
                        loaded, processed: processed, processing: processing?.options, to: URL(fileURLWithPath: output))
                } catch {
                    failures += 1
                    Console.error("\(url.absoluteString): cannot write: \(Console.describe(error))")
                }
            }
        }
        print(ResultTable.render(rows), terminator: "")
        if failures > 0 { throw ExitCode.failure }
    }

    /// Writes the loaded image, or `processed` when `--process` made one (in the format and quality its
    /// `f:` and `q:` ask for, before `--format` and `--quality`).
    private func write(
        _ loaded: ImageLoadResult, processed: Image?, processing: ProcessingOptions?,
        to folder: URL
    ) throws {
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let base = (loaded.url.lastPathComponent as NSString).deletingPathExtension
        let image = processed ?? loaded.image
        let target =
            processing?.format ?? format?.imageFormat
            ?? (loaded.image.format == .undefined ? .png : loaded.image.format)
        let percent = processing?.quality.map(Double.init) ?? quality
        let data: Data
        if format == nil, thumbnail == nil, processing == nil, let original = loaded.data {
            data = original
        } else {
            data = try ImageCodersManager.shared.encode(
                image, as: target, options: EncodeOptions(quality: percent / 100))
        }
        let name = (base.isEmpty ? "image" : base) + "." + (target.fileExtension ?? target.identifier)
        try data.write(to: folder.appendingPathComponent(name))
    }
}

/// `--process`: the parsed options and the transformer they build.
struct Processing {
    let options: ProcessingOptions
    /// nil when the options change no pixels (only `f:` or `q:`).
    let transformer: (any ImageTransformer)?

    /// Parses `text` and reads the watermark file; nil without `--process`.
    static func make(text: String?, watermarkPath: String?) throws -> Processing? {
        guard let text else { return nil }
        let options = try ProcessingOptions(parsing: text)
        var watermark: Image?
        if let watermarkPath {
            let data = try Data(contentsOf: URL(fileURLWithPath: watermarkPath))
            // The shared manager's first use registers the built-in coders.
            watermark = try WebImage.shared.coders.decode(data, options: DecodeOptions())
        }
        return Processing(options: options, transformer: try options.transformer(watermarkImage: watermark))
    }

    /// The processed image; animations are transformed frame by frame as they are written.
    func apply(to image: Image) throws(ImageError) -> Image {
        guard let transformer else { return image }
        if let frames = transformer as? any FrameTransformer { return try frames.transformed(image) }
        guard let output = transformer.transform(image, forKey: "") else {
            throw .invalidParameter(name: "process", reason: "the transformer \(transformer.transformerKey) failed")
        }
        return output
    }
}
