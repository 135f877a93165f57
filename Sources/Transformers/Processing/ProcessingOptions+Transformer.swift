import WebImageCore

extension ProcessingOptions {
    /// The transformer doing what these options say to the pixels, or nil when they change nothing
    /// (only quality or format, or no options at all).
    ///
    /// The steps always run in this order, whatever the order of the text (imgproxy's pipeline; it measures
    /// sizes on the rotated image, so rotating first gives the same geometry): trim; rotate and flip; crop;
    /// resize; brightness, contrast and saturation, grayscale, colorize, blur, sharpen; rounded corners or
    /// circle; extend; padding; flatten onto ``background`` (onto white for JPEG output without one);
    /// watermark. The dpr multiplies the resize and extend size, padding, radii, borders and absolute
    /// watermark offsets.
    ///
    /// A value built in code is checked as if it had been parsed. Throws
    /// `ImageError/invalidParameter(name:reason:)` naming the option, also when ``watermark`` is set and
    /// `watermarkImage` is nil. `isCancelled` stops the transformer between steps and frames (see
    /// ``ProcessingTransformer/isCancelled``).
    public func transformer(watermarkImage: Image?,
                            isCancelled: (@Sendable () -> Bool)? = nil) throws(ImageError) -> (any ImageTransformer)? {
        // Re-reading the canonical text applies every check of the parser to values set in code.
        let options = try ProcessingOptions(parsing: description)
        let steps = try options.steps(watermarkImage: watermarkImage)
        return steps.isEmpty ? nil : ProcessingTransformer(steps: steps, isCancelled: isCancelled)
    }

    /// The steps in application order.
    func steps(watermarkImage: Image?) throws(ImageError) -> [any FrameTransformer] {
        var steps: [any FrameTransformer] = []
        let canvas = background ?? .transparent
        if let trim {
            try step("t", &steps) { () throws(ImageError) in
                try TrimTransformer(threshold: trim.threshold, color: trim.color,
                                    equalHorizontal: trim.equalHorizontal, equalVertical: trim.equalVertical)
            }
        }
        if rotation != 0 {
            try step("rot", &steps) { () throws(ImageError) in try RotateTransformer(degrees: rotation, background: canvas) }
        }
        if flipHorizontally || flipVertically {
            steps.append(FlipTransformer(horizontal: flipHorizontally, vertical: flipVertically))
        }
        if let crop {
            steps.append(ProcessingCrop(width: crop.width, height: crop.height, gravity: crop.gravity ?? gravity))
        }
        let targetWidth = scaled(width)
        let targetHeight = scaled(height)
        if width != 0 || height != 0 {
            try step("rs", &steps) { () throws(ImageError) in
                try ResizeTransformer(width: targetWidth, height: targetHeight, mode: resizingType, gravity: gravity,
                                      enlarge: enlarge, filter: resamplingFilter)
            }
        }
        try appendEffects(to: &steps)
        if let roundedCorners {
            try step("rc", &steps) { () throws(ImageError) in
                try RoundedCornersTransformer(radius: roundedCorners.radius * devicePixelRatio,
                                              borderWidth: roundedCorners.borderWidth * devicePixelRatio,
                                              borderColor: roundedCorners.borderColor)
            }
        }
        if let circle {
            try step("ci", &steps) { () throws(ImageError) in
                try CircleTransformer(borderWidth: circle.borderWidth * devicePixelRatio, borderColor: circle.borderColor)
            }
        }
        if let extend, width != 0 || height != 0 {
            try step("ex", &steps) { () throws(ImageError) in
                try ExtendTransformer(width: targetWidth, height: targetHeight, gravity: extend.gravity, background: canvas)
            }
        }
        if let padding {
            try step("pd", &steps) { () throws(ImageError) in
                try PaddingTransformer(top: scaled(padding.top), right: scaled(padding.right),
                                       bottom: scaled(padding.bottom), left: scaled(padding.left), background: canvas)
            }
        }
        if let background {
            steps.append(FlattenTransformer(background: background))
        } else if format == .jpeg {
            steps.append(FlattenTransformer(background: .white))
        }
        if let watermark {
            guard let watermarkImage else {
                throw .invalidParameter(name: "wm", reason: "a watermark is asked for but no watermark image was given")
            }
            try appendWatermark(watermark, image: watermarkImage, to: &steps)
        }
        return steps
    }

    private func appendEffects(to steps: inout [any FrameTransformer]) throws(ImageError) {
        if brightness != 0 || contrast != 1 || saturation != 1 {
            try step("a", &steps) { () throws(ImageError) in
                try ColorAdjustTransformer(brightness: Double(brightness), contrast: contrast, saturation: saturation)
            }
        }
        if grayscale { steps.append(GrayscaleTransformer()) }
        if let colorize {
            let strength = UInt8((colorize.opacity * 255).rounded())
            let color = RGBAColor(red: colorize.color.red, green: colorize.color.green, blue: colorize.color.blue,
                                  alpha: strength)
            steps.append(TintTransformer(color: color, mode: colorize.blendMode))
        }
        if blur != 0 {
            try step("bl", &steps) { () throws(ImageError) in try BlurTransformer(sigma: blur) }
        }
        if sharpen != 0 {
            try step("sh", &steps) { () throws(ImageError) in try SharpenTransformer(sigma: sharpen) }
        }
    }

    private func appendWatermark(_ option: WatermarkOption, image: Image,
                                 to steps: inout [any FrameTransformer]) throws(ImageError) {
        let isRelative = { (offset: Double) in offset != 0 && abs(offset) < 1 }
        if isRelative(option.offsetX) || isRelative(option.offsetY) {
            try step("wm", &steps) { () throws(ImageError) in
                try ProcessingRelativeWatermark(watermark: image, option: option, devicePixelRatio: devicePixelRatio)
            }
        } else {
            // Absolute offsets do not depend on the image: build the transformer once.
            try step("wm", &steps) { () throws(ImageError) in
                try ProcessingRelativeWatermark.transformer(image, option, devicePixelRatio: devicePixelRatio,
                                                            imageWidth: 0, imageHeight: 0)
            }
        }
    }

    /// A size in points times the dpr, in whole pixels.
    private func scaled(_ points: Int) -> Int { Int((Double(points) * devicePixelRatio).rounded()) }

    /// Appends the transformer `make` builds; a parameter it refuses is reported under the option's name.
    private func step(_ option: String, _ steps: inout [any FrameTransformer],
                      _ make: () throws(ImageError) -> any FrameTransformer) throws(ImageError) {
        do {
            steps.append(try make())
        } catch {
            if case .invalidParameter(let name, let reason) = error {
                throw .invalidParameter(name: option, reason: "\(name): \(reason)")
            }
            throw error
        }
    }
}
