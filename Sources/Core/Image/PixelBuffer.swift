/// A rectangle of decoded pixels: width, height, layout, bytes per row and the bytes themselves.
///
/// The bytes live in a Swift array, so copies are cheap until one of them is written
/// (copy-on-write). Rows may be padded: always step by ``bytesPerRow``, never by
/// `width * bytesPerPixel`.
public struct PixelBuffer: Sendable, Hashable {
    /// Width in pixels.
    public let width: Int
    /// Height in pixels.
    public let height: Int
    /// How each pixel's bytes are laid out.
    public let layout: PixelLayout
    /// Distance in bytes from the start of one row to the start of the next.
    public let bytesPerRow: Int
    /// The pixel bytes, `bytesPerRow * height` of them.
    public var bytes: [UInt8]

    /// Wraps existing bytes. `bytes.count` must be at least `bytesPerRow * height`.
    public init(width: Int, height: Int, layout: PixelLayout, bytesPerRow: Int? = nil, bytes: [UInt8]) {
        let stride = bytesPerRow ?? width * layout.bytesPerPixel
        precondition(width >= 0 && height >= 0, "PixelBuffer dimensions must not be negative")
        precondition(stride >= width * layout.bytesPerPixel, "bytesPerRow is smaller than one row of pixels")
        precondition(bytes.count >= stride * height, "PixelBuffer needs \(stride * height) bytes, got \(bytes.count)")
        self.width = width
        self.height = height
        self.layout = layout
        self.bytesPerRow = stride
        self.bytes = bytes
    }

    /// Wraps bytes that come from outside (a user, a file), checked: throws
    /// ``ImageError/invalidParameter(name:reason:)`` for a negative size, a `bytesPerRow` shorter than a
    /// row, a size whose byte count overflows, or too few bytes, where ``init(width:height:layout:bytesPerRow:bytes:)``
    /// stops the process (a programmer error there).
    public init(
        width: Int, height: Int, layout: PixelLayout, bytesPerRow: Int? = nil,
        validating bytes: [UInt8]
    ) throws(ImageError) {
        guard width >= 0, height >= 0 else {
            throw .invalidParameter(name: "size", reason: "\(width)x\(height) has a negative side")
        }
        let (rowBytes, rowOverflow) = width.multipliedReportingOverflow(by: layout.bytesPerPixel)
        let stride = bytesPerRow ?? rowBytes
        guard !rowOverflow, stride >= rowBytes else {
            throw .invalidParameter(name: "bytesPerRow", reason: "\(stride) is shorter than one row of \(width) pixels")
        }
        let (needed, overflow) = stride.multipliedReportingOverflow(by: height)
        guard !overflow, bytes.count >= needed else {
            throw .invalidParameter(
                name: "bytes",
                reason:
                    "\(width)x\(height) needs \(overflow ? "more than Int.max" : "\(needed)") bytes, got \(bytes.count)"
            )
        }
        self.init(width: width, height: height, layout: layout, bytesPerRow: stride, bytes: bytes)
    }

    /// A buffer filled with zero bytes (transparent black for `.rgba8`).
    public init(width: Int, height: Int, layout: PixelLayout) {
        self.init(
            width: width, height: height, layout: layout,
            bytes: [UInt8](repeating: 0, count: width * height * layout.bytesPerPixel))
    }

    /// Bytes held by this buffer; what caches count as its cost.
    public var byteCount: Int { bytes.count }

    /// The pixel at (`x`, `y`) as RGBA, whatever the layout (gray and RGB are opaque).
    public func rgba(x: Int, y: Int) -> (r: UInt8, g: UInt8, b: UInt8, a: UInt8) {
        precondition(x >= 0 && x < width && y >= 0 && y < height, "pixel (\(x), \(y)) is outside \(width)x\(height)")
        let offset = y * bytesPerRow + x * layout.bytesPerPixel
        switch layout {
        case .rgba8: return (bytes[offset], bytes[offset + 1], bytes[offset + 2], bytes[offset + 3])
        case .rgb8: return (bytes[offset], bytes[offset + 1], bytes[offset + 2], 255)
        case .gray8: return (bytes[offset], bytes[offset], bytes[offset], 255)
        }
    }

    /// This buffer converted to another layout (gray is expanded, RGB dropped to gray by luma, alpha
    /// dropped by ignoring it).
    public func converted(to target: PixelLayout) -> PixelBuffer {
        if target == layout { return self }
        var out = [UInt8](repeating: 0, count: width * height * target.bytesPerPixel)
        let outBPP = target.bytesPerPixel
        for y in 0..<height {
            for x in 0..<width {
                let p = rgba(x: x, y: y)
                let o = (y * width + x) * outBPP
                switch target {
                case .rgba8:
                    out[o] = p.r; out[o + 1] = p.g; out[o + 2] = p.b; out[o + 3] = p.a
                case .rgb8:
                    out[o] = p.r; out[o + 1] = p.g; out[o + 2] = p.b
                case .gray8:
                    // ITU-R BT.601 luma, the weights JPEG and PNG encoders use for gray.
                    let luma = (299 * Int(p.r) + 587 * Int(p.g) + 114 * Int(p.b) + 500) / 1000
                    out[o] = UInt8(luma)
                }
            }
        }
        return PixelBuffer(width: width, height: height, layout: target, bytes: out)
    }

    /// The same pixels with rows packed tightly (`bytesPerRow == width * bytesPerPixel`).
    public func packed() -> PixelBuffer {
        let rowBytes = width * layout.bytesPerPixel
        if rowBytes == bytesPerRow { return self }
        var out = [UInt8]()
        out.reserveCapacity(rowBytes * height)
        for y in 0..<height {
            out.append(contentsOf: bytes[(y * bytesPerRow)..<(y * bytesPerRow + rowBytes)])
        }
        return PixelBuffer(width: width, height: height, layout: layout, bytes: out)
    }
}
