import Foundation
import Synchronization

/// Holds the registered coders and picks one for each job (SDWebImage's `SDImageCodersManager`).
///
/// The last registered coder that can handle the data or format wins, so registering your own coder
/// for a format overrides the built-in one. The manager is itself an ``ImageCoder`` and a
/// ``ProgressiveImageCoder``, so it can stand wherever one coder is expected.
public final class ImageCodersManager: ProgressiveImageCoder {
    /// The process-wide manager the default ``ImageManager`` decodes with. Starts empty; plugins'
    /// `register()` helpers (or the `WebImage` module) add their coders.
    public static let shared = ImageCodersManager()

    /// Registered coders, newest last. Reads copy the array out, so coders run outside the lock.
    private let registered: Locked<[any ImageCoder]>

    /// What ``defaultColorConversion`` holds; guarded so it can be set while other threads decode.
    private let colorConversionDefault = Locked(ColorConversion.off)

    /// A manager over `coders` (the last registered that can decode some data decodes it).
    public init(coders: [any ImageCoder] = []) {
        registered = Locked(coders)
    }

    /// What decodes whose ``DecodeOptions/colorConversion`` is nil do with an embedded ICC profile:
    /// ``ColorConversion/off`` by default; the `WebImage` module sets ``ColorConversion/sRGB(_:)`` with
    /// Little CMS on the shared manager.
    public var defaultColorConversion: ColorConversion {
        get { colorConversionDefault.withLock { $0 } }
        set { colorConversionDefault.withLock { $0 = newValue } }
    }

    /// `options` with their colour conversion decided (``defaultColorConversion`` when they leave it nil).
    func resolvingColorConversion(_ options: DecodeOptions) -> DecodeOptions {
        guard options.colorConversion == nil else { return options }
        var options = options
        options.colorConversion = defaultColorConversion
        return options
    }

    /// The registered coders, oldest first.
    public var coders: [any ImageCoder] {
        get { registered.withLock { $0 } }
        set { registered.withLock { $0 = newValue } }
    }

    /// Registers `coder`; it is asked before every coder registered earlier.
    public func addCoder(_ coder: any ImageCoder) {
        registered.withLock { $0.append(coder) }
    }

    /// Unregisters every coder of `coder`'s type.
    public func removeCoders<C: ImageCoder>(ofType type: C.Type) {
        registered.withLock { $0.removeAll { $0 is C } }
    }

    public var decodableFormats: [ImageFormat] {
        var seen = Set<ImageFormat>()
        return coders.flatMap(\.decodableFormats).filter { seen.insert($0).inserted }
    }

    /// The coder that will decode `data`: the newest registered one that says it can.
    public func coder(forDecoding data: Data) -> (any ImageCoder)? {
        coders.reversed().first { $0.canDecode(data) }
    }

    public func canDecode(_ data: Data) -> Bool { coder(forDecoding: data) != nil }

    public func decode(_ data: Data, options: DecodeOptions) throws(ImageError) -> Image {
        try decode(data, options: options, measuring: Telemetry.isMeasuring)
    }

    /// ``decode(_:options:)`` recording its duration only when `measuring`: the image manager passes the
    /// switch it read once for the whole load.
    func decode(_ data: Data, options: DecodeOptions, measuring: Bool) throws(ImageError) -> Image {
        guard !data.isEmpty else { throw .badImageData(reason: "no data") }
        guard let coder = coder(forDecoding: data) else { throw .unsupportedFormat(ImageFormat.detect(data)) }
        let options = resolvingColorConversion(options)
        let started = measuring ? ContinuousClock.now : nil
        do {
            let image = try coder.decode(data, options: options)
            if let started { CoderMetricsRecorder.recordDecode(format: image.format, succeeded: true, since: started) }
            return options.colorConversion?.apply(to: image) ?? image
        } catch {
            if let started {
                CoderMetricsRecorder.recordDecode(format: ImageFormat.detect(data), succeeded: false, since: started)
            }
            throw error
        }
    }

    public func canEncode(to format: ImageFormat) -> Bool {
        coders.contains { $0.canEncode(to: format) }
    }

    public func encode(_ image: Image, as format: ImageFormat, options: EncodeOptions) throws(ImageError) -> Data {
        guard let coder = coders.reversed().first(where: { $0.canEncode(to: format) }) else {
            throw .unsupportedFormat(format)
        }
        let started = ContinuousClock.now
        let data = try coder.encode(image, as: format, options: options)
        CoderMetricsRecorder.recordEncode(format: format, since: started)
        return data
    }

    public func canDecodeIncrementally(_ data: Data) -> Bool {
        progressiveCoder(for: data) != nil
    }

    /// The newest registered progressive coder that can decode `data` incrementally.
    public func progressiveCoder(for data: Data) -> (any ProgressiveImageCoder)? {
        for coder in coders.reversed() {
            if let progressive = coder as? any ProgressiveImageCoder, progressive.canDecodeIncrementally(data) {
                return progressive
            }
        }
        return nil
    }

    /// Needs the first bytes to pick a coder, so it returns a decoder that chooses once it has them.
    public func makeIncrementalDecoder(options: DecodeOptions) -> any IncrementalImageDecoder {
        SniffingIncrementalDecoder(manager: self, options: resolvingColorConversion(options))
    }
}

/// Buffers the first bytes of a download until a progressive coder recognises them, then forwards
/// everything to that coder's decoder. Falls back to a full decode at the end when none does.
final class SniffingIncrementalDecoder: IncrementalImageDecoder {
    private let manager: ImageCodersManager
    private let options: DecodeOptions
    private var buffered = Data()
    private var inner: (any IncrementalImageDecoder)?
    /// Enough bytes to recognise every format we sniff (RIFF....WEBPVP8X needs 16).
    private let sniffLength = 32

    init(manager: ImageCodersManager, options: DecodeOptions) {
        self.manager = manager
        self.options = options
    }

    func append(_ bytes: Data) throws(ImageError) {
        if let inner { return try inner.append(bytes) }
        buffered.append(bytes)
        guard buffered.count >= sniffLength, let coder = manager.progressiveCoder(for: buffered) else { return }
        let decoder = coder.makeIncrementalDecoder(options: options)
        inner = decoder
        try decoder.append(buffered)
        buffered = Data()
    }

    /// The partial image, converted to sRGB as ``finish()``'s is.
    func partialImage() -> Image? {
        inner?.partialImage().map { options.colorConversion?.apply(to: $0) ?? $0 }
    }

    func finish() throws(ImageError) -> Image {
        if let inner {
            let image = try inner.finish()
            return options.colorConversion?.apply(to: image) ?? image
        }
        return try manager.decode(buffered, options: options)
    }
}
