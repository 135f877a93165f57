import WebImageCore

extension ProcessingOptions {
    /// The transformer doing what these options say to the pixels, or nil when they change nothing
    /// (only quality or format, or no options at all).
    ///
    /// The steps always run in this order, whatever the order of the text (imgproxy's pipeline; it measures
    /// sizes on the rotated image, so rotating first gives the same geometry): trim; rotate and flip; crop;
    /// resize and the result crop; brightness, contrast and saturation, grayscale, monochrome, duotone,
    /// colorize, blur, sharpen, pixelate; rounded corners or circle; extend; extend to the aspect ratio;
    /// padding; flatten onto ``background`` (onto white for JPEG output without one); watermark. Crop to
    /// padding are sized as imgproxy sizes them from each frame's size (the effective dpr, zoom, minimum
    /// sizes, ``maxResultDimension``), so the steps from crop to padding are one step. The dpr also
    /// multiplies radii, borders and absolute watermark offsets.
    ///
    /// A value built in code is checked as if it had been parsed. Throws
    /// `ImageError/invalidParameter(name:reason:)` naming the option, also when ``watermark`` is set and
    /// `watermarkImage` is nil. `isCancelled` stops the transformer between steps and frames (see
    /// ``ProcessingTransformer/isCancelled``).
    public func transformer(
        watermarkImage: Image?,
        isCancelled: (@Sendable () -> Bool)? = nil
    ) throws(ImageError) -> (any ImageTransformer)? {
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
                try TrimTransformer(
                    threshold: trim.threshold, color: trim.color,
                    equalHorizontal: trim.equalHorizontal, equalVertical: trim.equalVertical)
            }
        }
        if rotation != 0 {
            try step("rot", &steps) { () throws(ImageError) in
                try RotateTransformer(degrees: rotation, background: canvas)
            }
        }
        if flipHorizontally || flipVertically {
            steps.append(FlipTransformer(horizontal: flipHorizontally, vertical: flipVertically))
        }
        // Effects and shape run between the result crop and extend; with geometry to do they run inside
        // its step, which sizes extend and padding from the source.
        var inner: [any FrameTransformer] = []
        try appendEffects(to: &inner)
        if let roundedCorners {
            try step("rc", &inner) { () throws(ImageError) in
                try RoundedCornersTransformer(
                    radius: roundedCorners.radius * devicePixelRatio,
                    borderWidth: roundedCorners.borderWidth * devicePixelRatio,
                    borderColor: roundedCorners.borderColor)
            }
        }
        if let circle {
            try step("ci", &inner) { () throws(ImageError) in
                try CircleTransformer(
                    borderWidth: circle.borderWidth * devicePixelRatio, borderColor: circle.borderColor)
            }
        }
        if hasGeometry {
            steps.append(ProcessingGeometry(options: self, inner: inner, background: canvas))
        } else {
            steps += inner
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
        if let monochrome {
            try step("mc", &steps) { () throws(ImageError) in
                try MonochromeTransformer(intensity: monochrome.intensity, color: monochrome.color)
            }
        }
        if let duotone {
            try step("dt", &steps) { () throws(ImageError) in
                try DuotoneTransformer(intensity: duotone.intensity, dark: duotone.dark, light: duotone.light)
            }
        }
        if let colorize {
            let strength = UInt8((colorize.opacity * 255).rounded())
            let color = RGBAColor(
                red: colorize.color.red, green: colorize.color.green, blue: colorize.color.blue,
                alpha: strength)
            steps.append(TintTransformer(color: color, mode: colorize.blendMode))
        }
        if blur != 0 {
            try step("bl", &steps) { () throws(ImageError) in try BlurTransformer(sigma: blur) }
        }
        if sharpen != 0 {
            try step("sh", &steps) { () throws(ImageError) in try SharpenTransformer(sigma: sharpen) }
        }
        if pixelate > 1 {
            try step("pix", &steps) { () throws(ImageError) in try PixelateTransformer(blockSize: pixelate) }
        }
    }

    private func appendWatermark(
        _ option: WatermarkOption, image: Image,
        to steps: inout [any FrameTransformer]
    ) throws(ImageError) {
        let isRelative = { (offset: Double) in offset != 0 && abs(offset) < 1 }
        if isRelative(option.offsetX) || isRelative(option.offsetY) {
            try step("wm", &steps) { () throws(ImageError) in
                try ProcessingRelativeWatermark(watermark: image, option: option, devicePixelRatio: devicePixelRatio)
            }
        } else {
            // Absolute offsets do not depend on the image: build the transformer once.
            try step("wm", &steps) { () throws(ImageError) in
                try ProcessingRelativeWatermark.transformer(
                    image, option, devicePixelRatio: devicePixelRatio,
                    imageWidth: 0, imageHeight: 0)
            }
        }
    }

    /// Appends the transformer `make` builds; a parameter it refuses is reported under the option's name.
    private func step(
        _ option: String, _ steps: inout [any FrameTransformer],
        _ make: () throws(ImageError) -> any FrameTransformer
    ) throws(ImageError) {
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
