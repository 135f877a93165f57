import WebImageCore

/// Reads an APNG's chunks in file order and checks the rules ``APNGContainer`` promises; the state
/// machine behind ``APNGContainer/parse(_:options:)``.
struct APNGParser {
    /// What reading one chunk decided.
    enum Outcome {
        case keepReading
        /// `IEND`: the file is complete.
        case ended
        /// `IDAT` came before any `acTL`, or the animation's chunks are broken: a still PNG (its default
        /// image), which the still decoder reads.
        case notAnimated
        /// An error in the critical chunks, which fails the still image too.
        case invalid(String)
    }

    private enum Phase { case beforeImage, inImage, afterImage }

    /// APNG's control chunks, whose CRC this parser checks (libpng never sees them): a bad one makes the
    /// file a still. A bad `fdAT` CRC damages only its frame (``APNGContainer/Frame/hasBadCRC``).
    private static let animationControlTypes: Set<String> = ["acTL", "fcTL"]

    private let bytes: [UInt8]
    private let options: DecodeOptions
    private var header: (width: Int, height: Int, tail: ArraySlice<UInt8>)?
    private var animation: (frameCount: Int, playCount: Int)?
    private var frames: [APNGContainer.Frame] = []
    private var sharedChunks: [Range<Int>] = []
    private var nextSequence: UInt32 = 0
    private var phase = Phase.beforeImage
    private var defaultImageIsFirstFrame = false
    /// Whether the frame being read takes `fdAT` chunks (it began with an `fcTL` after `IDAT`).
    private var frameTakesFDAT = false
    /// Pixels of work the frames so far cost: each frame's canvas plus its own rectangle (see
    /// `DecodeOptions/checkAnimationWork(canvasWidth:canvasHeight:frameSizes:)`).
    private var work = 0

    init(bytes: [UInt8], options: DecodeOptions) {
        self.bytes = bytes
        self.options = options
    }

    /// Reads one chunk. Errors in the critical chunks throw; errors in the animation's own chunks
    /// (`acTL`, `fcTL`, `fdAT`: sequence gaps, misplaced or repeated controls, frames outside the canvas,
    /// a frame count that does not match, bad CRCs of `acTL`/`fcTL`) give `.notAnimated`: the file is shown
    /// as its default image, a still, as the APNG specification asks and Chromium does. Budgets throw.
    mutating func read(_ chunk: PNGChunkLocation) throws(ImageError) -> Outcome {
        if !chunk.crcMatches && chunk.isCritical {
            throw .badImageData(reason: "PNG: \(chunk.type) chunk has a bad CRC")
        }
        guard let canvas = header else {
            header = try readHeader(chunk)
            return .keepReading
        }
        if phase == .inImage && chunk.type != "IDAT" { phase = .afterImage }
        do throws(ImageError) {
            if !chunk.crcMatches && Self.animationControlTypes.contains(chunk.type) {
                throw .badImageData(reason: "APNG: \(chunk.type) chunk has a bad CRC")
            }
            switch chunk.type {
            case "acTL": try readAnimationControl(chunk)
            case "fcTL": try readFrameControl(chunk, canvasWidth: canvas.width, canvasHeight: canvas.height)
            case "IDAT": if try !readImageData(chunk) { return .notAnimated }
            case "fdAT": try readFrameData(chunk)
            case "PLTE", "tRNS":
                if phase == .beforeImage { sharedChunks.append(chunk.start..<(chunk.data.upperBound + 4)) }
            case "IEND": return .ended
            case "IHDR": return .invalid("PNG: a second IHDR")
            default: if chunk.isCritical { return .invalid("PNG: unknown critical chunk \(chunk.type)") }
            }
        } catch {
            // Budgets are not damage: only a broken animation structure falls back to the still.
            guard case .badImageData = error else { throw error }
            return .notAnimated
        }
        return .keepReading
    }

    /// The container, once the chunks ran out (`ended` false: before `IEND`); nil for a still PNG,
    /// including an APNG whose animation chunks are broken (shown as its default image).
    func finish(ended: Bool) throws(ImageError) -> APNGContainer? {
        guard let header else { throw .badImageData(reason: "PNG: no IHDR (truncated or not a PNG)") }
        guard let animation else { return nil }
        guard phase != .beforeImage else { throw .badImageData(reason: "APNG: no IDAT (truncated or malformed)") }
        var frames = self.frames
        if ended {
            // A frame without data or a frame count that differs from acTL's: a broken animation.
            if let last = frames.last, last.data.isEmpty { return nil }
            guard frames.count == animation.frameCount else { return nil }
        } else {
            guard options.allowPartialImage else {
                throw .badImageData(reason: "APNG: the data ended before IEND (truncated file)")
            }
            // The last frame's data may be cut short; every frame before it is whole.
            if !frames.isEmpty { frames.removeLast() }
            guard !frames.isEmpty else {
                throw .badImageData(reason: "APNG: the data ended before the first whole frame")
            }
        }
        return APNGContainer(
            bytes: bytes, canvasWidth: header.width, canvasHeight: header.height,
            headerTail: header.tail, playCount: animation.playCount, frames: frames,
            sharedChunks: sharedChunks, defaultImageIsFirstFrame: defaultImageIsFirstFrame,
            isTruncated: !ended)
    }

    /// IHDR, which must come first; the canvas is checked against the pixel limit here, before any
    /// pixel memory exists.
    private func readHeader(
        _ chunk: PNGChunkLocation
    ) throws(ImageError) -> (width: Int, height: Int, tail: ArraySlice<UInt8>) {
        guard chunk.type == "IHDR", chunk.data.count == 13 else {
            throw .badImageData(reason: "PNG: the first chunk is not IHDR")
        }
        let width = Int(PNGChunkStream.readUInt32(bytes, at: chunk.data.lowerBound))
        let height = Int(PNGChunkStream.readUInt32(bytes, at: chunk.data.lowerBound + 4))
        guard width <= PNGChunkStream.maxChunkLength, height <= PNGChunkStream.maxChunkLength else {
            throw .badImageData(reason: "PNG: IHDR size \(width)x\(height) is over the PNG limit")
        }
        try options.checkDimensions(width: width, height: height)
        return (width, height, bytes[(chunk.data.lowerBound + 8)..<chunk.data.upperBound])
    }

    private mutating func readAnimationControl(_ chunk: PNGChunkLocation) throws(ImageError) {
        // An acTL after the image data does not make an APNG; still-image decoders ignore it, and so do we.
        guard phase == .beforeImage else { return }
        guard animation == nil else { throw .badImageData(reason: "APNG: more than one acTL") }
        guard chunk.data.count == 8 else { throw .badImageData(reason: "APNG: acTL is not 8 bytes") }
        let frameCount = Int(PNGChunkStream.readUInt32(bytes, at: chunk.data.lowerBound))
        let playCount = Int(PNGChunkStream.readUInt32(bytes, at: chunk.data.lowerBound + 4))
        guard frameCount > 0 else { throw .badImageData(reason: "APNG: acTL announces no frames") }
        // The frame budget is checked from the header, before any frame is read.
        try options.checkFrameCount(frameCount)
        animation = (frameCount, playCount)
    }

    private mutating func readFrameControl(
        _ chunk: PNGChunkLocation, canvasWidth: Int, canvasHeight: Int
    ) throws(ImageError) {
        guard let animation else { throw .badImageData(reason: "APNG: fcTL before acTL") }
        let control = try APNGFrameControl(
            bytes, range: chunk.data, canvasWidth: canvasWidth, canvasHeight: canvasHeight)
        try checkSequence(control.sequenceNumber)
        guard frames.count < animation.frameCount else {
            throw .badImageData(reason: "APNG: more fcTL chunks than the \(animation.frameCount) frames acTL announces")
        }
        if phase == .beforeImage {
            // This frame's data is the default image (IDAT), which must fill the canvas.
            guard frames.isEmpty else { throw .badImageData(reason: "APNG: two fcTL chunks before IDAT") }
            guard control.x == 0, control.y == 0, control.width == canvasWidth, control.height == canvasHeight else {
                throw .badImageData(reason: "APNG: the default image's frame does not cover the canvas")
            }
            defaultImageIsFirstFrame = true
        } else {
            try checkLastFrameHasData()
            frameTakesFDAT = true
        }
        try countWork(of: control, canvasWidth: canvasWidth, canvasHeight: canvasHeight)
        frames.append(APNGContainer.Frame(control: control, data: []))
    }

    /// Adds a frame's work (its canvas composed, its rectangle decompressed) and checks the budgets,
    /// before any frame is decoded; with `firstFrameOnly` only frame 0 counts.
    private mutating func countWork(
        of control: APNGFrameControl, canvasWidth: Int, canvasHeight: Int
    ) throws(ImageError) {
        guard !options.firstFrameOnly || frames.isEmpty else { return }
        try options.checkFrameCount(frames.count + 1)
        // Each side is under 2^31 (IHDR and fcTL checks), so each product fits; the sums may not, with a
        // budget near Int.max.
        let frameWork = canvasWidth * canvasHeight + control.width * control.height
        let (sum, overflow) = work.addingReportingOverflow(frameWork)
        work = overflow ? .max : sum
        try options.checkTotalPixels(work)
    }

    /// False when this `IDAT` shows the file is a still PNG.
    private mutating func readImageData(_ chunk: PNGChunkLocation) throws(ImageError) -> Bool {
        switch phase {
        case .beforeImage:
            guard animation != nil else { return false }
            phase = .inImage
        case .inImage: break
        case .afterImage: throw .badImageData(reason: "APNG: IDAT chunks are not consecutive")
        }
        if defaultImageIsFirstFrame { frames[0].data.append(chunk.data) }
        return true
    }

    private mutating func readFrameData(_ chunk: PNGChunkLocation) throws(ImageError) {
        guard phase != .beforeImage, frameTakesFDAT, !frames.isEmpty else {
            throw .badImageData(reason: "APNG: fdAT without a frame control after IDAT")
        }
        guard chunk.data.count >= 4 else { throw .badImageData(reason: "APNG: fdAT has no sequence number") }
        try checkSequence(PNGChunkStream.readUInt32(bytes, at: chunk.data.lowerBound))
        frames[frames.count - 1].data.append((chunk.data.lowerBound + 4)..<chunk.data.upperBound)
        if !chunk.crcMatches { frames[frames.count - 1].hasBadCRC = true }
    }

    private func checkLastFrameHasData() throws(ImageError) {
        // A frame without data before the next fcTL: a broken animation.
        if let last = frames.last, last.data.isEmpty {
            throw .badImageData(reason: "APNG: frame \(frames.count - 1) has no image data (missing fdAT)")
        }
    }

    /// `fcTL` and `fdAT` share one sequence, 0, 1, 2, ... in file order.
    private mutating func checkSequence(_ number: UInt32) throws(ImageError) {
        guard number == nextSequence else {
            throw .badImageData(reason: "APNG: sequence number \(number) where \(nextSequence) was expected")
        }
        nextSequence &+= 1
    }
}
