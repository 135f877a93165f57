import WebImageCore

extension ProcessingOptions: CustomStringConvertible {
    /// The canonical text: short names, options in the order they are applied, defaults left out, numbers
    /// in their shortest exact form, colours as lower-case hex. It parses back to an equal value, and two
    /// values print the same text only when they are equal, so it serves as a cache key. Empty when there
    /// is nothing to do.
    public var description: String { segments.joined(separator: "/") }

    /// The canonical segments, in application order.
    var segments: [String] { pixelSegments + outputSegments + handlingSegments }

    /// The segments that change pixels (everything but quality and format).
    var pixelSegments: [String] {
        var out: [String] = []
        if let trim {
            var arguments = [number(trim.threshold), trim.color?.hexString ?? ""]
            if trim.equalHorizontal || trim.equalVertical {
                arguments += [flag(trim.equalHorizontal), flag(trim.equalVertical)]
            }
            out.append("t:" + trimmed(arguments).joined(separator: ":"))
        }
        if rotation != 0 { out.append("rot:\(number(rotation))") }
        if flipHorizontally || flipVertically { out.append("fl:\(flag(flipHorizontally)):\(flag(flipVertically))") }
        if let crop {
            var text = "c:\(number(crop.width)):\(number(crop.height))"
            if let gravity = crop.gravity { text += ":" + gravityText(gravity, crop.offsetX, crop.offsetY) }
            out.append(text)
        }
        if resizingType != .fit || width != 0 || height != 0 || enlarge {
            out.append("rs:\(ProcessingNames.text(resizingType)):\(width):\(height)" + (enlarge ? ":1" : ""))
        }
        if minWidth != 0 { out.append("mw:\(minWidth)") }
        if minHeight != 0 { out.append("mh:\(minHeight)") }
        if zoomWidth != 1 || zoomHeight != 1 {
            out.append("z:" + number(zoomWidth) + (zoomHeight == zoomWidth ? "" : ":" + number(zoomHeight)))
        }
        if gravity != .center || gravityOffsetX != 0 || gravityOffsetY != 0 {
            out.append("g:" + gravityText(gravity, gravityOffsetX, gravityOffsetY))
        }
        if resamplingFilter != .lanczos3 { out.append("ra:" + ProcessingNames.text(resamplingFilter)) }
        if devicePixelRatio != 1 { out.append("dpr:" + number(devicePixelRatio)) }
        if brightness != 0 { out.append("br:\(brightness)") }
        if contrast != 1 { out.append("co:" + number(contrast)) }
        if saturation != 1 { out.append("sa:" + number(saturation)) }
        if grayscale { out.append("gs:1") }
        if let monochrome {
            out.append(
                "mc:" + number(monochrome.intensity)
                    + (monochrome.color == MonochromeTransformer.defaultColor ? "" : ":" + monochrome.color.hexString))
        }
        if let duotone {
            out.append(
                "dt:"
                    + trimmed([
                        number(duotone.intensity), duotone.dark == .black ? "" : duotone.dark.hexString,
                        duotone.light == .white ? "" : duotone.light.hexString,
                    ]).joined(separator: ":"))
        }
        if let colorize {
            var text = "col:\(number(colorize.opacity)):\(colorize.color.hexString)"
            if colorize.blendMode != .normal { text += ":1:" + ProcessingNames.text(colorize.blendMode) }
            out.append(text)
        }
        if blur != 0 { out.append("bl:" + number(blur)) }
        if sharpen != 0 { out.append("sh:" + number(sharpen)) }
        if pixelate > 1 { out.append("pix:\(pixelate)") }
        if let roundedCorners {
            out.append(
                "rc:"
                    + trimmed([
                        number(roundedCorners.radius), number(roundedCorners.borderWidth),
                        border(roundedCorners.borderColor),
                    ]).joined(separator: ":"))
        }
        if let circle {
            out.append(
                (["ci"] + trimmed([number(circle.borderWidth), border(circle.borderColor)])).joined(separator: ":"))
        }
        if let extend { out.append("ex:1" + extendText(extend)) }
        if let extendAspectRatio { out.append("exar:1" + extendText(extendAspectRatio)) }
        if let padding {
            out.append("pd:\(padding.top):\(padding.right):\(padding.bottom):\(padding.left)")
        }
        if let background { out.append("bg:" + background.hexString) }
        if let watermark {
            let arguments = [
                number(watermark.opacity), watermark.replicate ? "re" : ProcessingNames.text(watermark.position),
                number(watermark.offsetX), number(watermark.offsetY), number(watermark.scale ?? 0),
            ]
            out.append("wm:" + trimmed(arguments, defaults: ["", "ce", "0", "0", "0"]).joined(separator: ":"))
        }
        return out
    }

    /// Quality and format: they change the encoding, not the pixels.
    var outputSegments: [String] {
        var out: [String] = []
        if let quality { out.append("q:\(quality)") }
        if let format { out.append("f:" + ProcessingNames.text(format)) }
        return out
    }

    /// The options the server acts on, each only when set.
    var handlingSegments: [String] {
        var out: [String] = []
        let flags: [(String, Bool?)] = [
            ("sm", stripMetadata), ("kcr", keepCopyright), ("scp", stripColorProfile),
            ("eth", enforceThumbnail), ("ar", autoRotate),
        ]
        for (name, value) in flags { if let value { out.append("\(name):\(flag(value))") } }
        if !formatQuality.isEmpty {
            let pairs = formatQuality.sorted { formatOrder($0.key, $1.key) }
            out.append("fq:" + pairs.map { "\(ProcessingNames.text($0.key)):\($0.value)" }.joined(separator: ":"))
        }
        if maxBytes != 0 { out.append("mb:\(maxBytes)") }
        if !skipProcessingFormats.isEmpty {
            out.append(
                "skp:" + skipProcessingFormats.sorted(by: formatOrder).map(ProcessingNames.text).joined(separator: ":"))
        }
        if raw { out.append("raw:1") }
        if let maxSourceResolution { out.append("msr:" + number(maxSourceResolution)) }
        if let maxSourceFileSize { out.append("msfs:\(maxSourceFileSize)") }
        if let maxAnimationFrames { out.append("maf:\(maxAnimationFrames)") }
        if let maxAnimationFrameResolution { out.append("mafr:" + number(maxAnimationFrameResolution)) }
        if let maxResultDimension { out.append("mrd:\(maxResultDimension)") }
        return out
    }

    /// Formats in the order of the names table, then by identifier.
    private func formatOrder(_ a: ImageFormat, _ b: ImageFormat) -> Bool {
        let (rankA, rankB) = (ProcessingNames.rank(a), ProcessingNames.rank(b))
        return rankA != rankB ? rankA < rankB : a.identifier < b.identifier
    }

    /// `type` or `type:x:y` (offsets only when one is not 0).
    private func gravityText(_ gravity: Gravity, _ x: Double, _ y: Double) -> String {
        ProcessingNames.text(gravity) + (x == 0 && y == 0 ? "" : ":\(number(x)):\(number(y))")
    }

    /// The arguments of `ex` and `exar` after the 1: nothing for the centre without offsets.
    private func extendText(_ extend: Extend) -> String {
        extend.gravity == .center && extend.offsetX == 0 && extend.offsetY == 0
            ? "" : ":" + gravityText(extend.gravity, extend.offsetX, extend.offsetY)
    }

    private func number(_ value: Double) -> String { ProcessingNumber.text(value) }
    private func flag(_ value: Bool) -> String { value ? "1" : "0" }
    /// A border colour, left out (empty) when it is the default white.
    private func border(_ color: RGBAColor) -> String { color == .white ? "" : color.hexString }

    /// `arguments` without the trailing ones equal to their defaults (empty strings by default).
    private func trimmed(_ arguments: [String], defaults: [String]? = nil) -> [String] {
        var kept = arguments
        while let last = kept.last, kept.count > 1 {
            let fallback = defaults?[kept.count - 1] ?? ""
            guard last == fallback || (defaults == nil && (last == "0" || last.isEmpty)) else { break }
            kept.removeLast()
        }
        return kept
    }
}
