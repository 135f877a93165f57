import Synchronization
import Testing
import WebImageCore
import WebImageTransformers

/// What `ProcessingOptions.transformer(watermarkImage:isCancelled:)` builds: the steps in imgproxy's order whatever the
/// order of the text, sizes multiplied by the dpr, distinct keys, errors named after the option.
@Suite struct ProcessingTransformerTests {
    /// An opaque RGBA image whose every pixel differs, so geometry shows in the bytes.
    static func image(width: Int, height: Int) -> Image {
        var bytes: [UInt8] = []
        for y in 0..<height {
            for x in 0..<width { bytes += [UInt8(x * 20 % 256), UInt8(y * 20 % 256), UInt8((x + y) % 256), 255] }
        }
        return Image(pixels: PixelBuffer(width: width, height: height, layout: .rgba8, bytes: bytes))
    }

    static func steps(_ text: String, watermark: Image? = nil) throws -> [any FrameTransformer] {
        let built = try ProcessingOptions(parsing: text).transformer(watermarkImage: watermark)
        return try #require(built as? ProcessingTransformer).steps
    }

    static func output(_ text: String, on image: Image, watermark: Image? = nil) throws -> Image {
        let built = try ProcessingOptions(parsing: text).transformer(watermarkImage: watermark)
        return try #require(built as? ProcessingTransformer).transformed(image)
    }

    static func isInvalidParameter(_ error: any Error, named name: String) -> Bool {
        guard case ImageError.invalidParameter(let got, let reason) = error else { return false }
        return got == name && !reason.isEmpty
    }

    @Test func stepsRunInImgproxysOrderWhateverTheOrderOfTheText() throws {
        let logo = Self.image(width: 2, height: 2)
        let text =
            "wm:0.5:soea:3:4/bg:ff0000/pd:1:2/ex:1:no/rc:3/sh:0.5/bl:1.5/col:0.5:00ff00/gs/br:10/"
            + "rs:fill:40:30/c:100:80:nowe/fl:1:0/rot:90/t:5"
        let keys = try Self.steps(text, watermark: logo).map(\.transformerKey)
        let red = RGBAColor(red: 255, green: 0, blue: 0)
        let inner: [String] = try [
            ColorAdjustTransformer(brightness: 10).transformerKey,
            GrayscaleTransformer().transformerKey,
            TintTransformer(color: RGBAColor(red: 0, green: 255, blue: 0, alpha: 128)).transformerKey,
            BlurTransformer(sigma: 1.5).transformerKey,
            SharpenTransformer(sigma: 0.5).transformerKey,
            RoundedCornersTransformer(radius: 3).transformerKey,
        ]
        let expected: [String] = try [
            TrimTransformer(threshold: 5).transformerKey,
            RotateTransformer(degrees: 90, background: red).transformerKey,
            FlipTransformer(horizontal: true, vertical: false).transformerKey,
            // Crop, resize, the effects and shape, extend and padding: one geometry step, since extend and
            // padding are sized from the source (imgproxy's effective dpr).
            "geometry(c:100:80:nowe/rs:fill:40:30/ex:1:no/pd:1:2:1:2)[" + inner.joined(separator: "/") + "]bgff0000",
            FlattenTransformer(background: red).transformerKey,
            WatermarkTransformer(watermark: logo, gravity: .southEast, offsetX: 3, offsetY: 4, opacity: 0.5)
                .transformerKey,
        ]
        #expect(keys == expected)
    }

    @Test func theOrderOfTheTextDoesNotChangeTheResult() throws {
        let image = Self.image(width: 10, height: 6)
        // Crop first, then pad: 4x4 grows to 8x8. (Padding first would have been cropped away.)
        let padded = try Self.output("pd:2/c:4:4", on: image)
        #expect(padded.width == 8 && padded.height == 8)
        #expect(try Self.output("c:4:4/pd:2", on: image).pixels == padded.pixels)
        // Rotate before crop: the crop is measured on the rotated (6x10) image.
        let rotated = try Self.output("c:6:2:nowe/rot:90", on: image)
        #expect(rotated.width == 6 && rotated.height == 2)
        let manual = try CropTransformer(x: 0, y: 0, width: 6, height: 2)
            .transformFrame(RotateTransformer(degrees: 90).transformFrame(image.pixels))
        #expect(rotated.pixels == manual)
    }

    @Test func dprMultipliesSizesPaddingRadiiAndOffsets() throws {
        let logo = Self.image(width: 2, height: 2)
        let text = "rs:fit:10:20/ex:1/pd:1:2:3:4/rc:4:1/wm:1:soea:5:6/dpr:2"
        let keys = try Self.steps(text, watermark: logo).map(\.transformerKey)
        let corners = try RoundedCornersTransformer(radius: 8, borderWidth: 2).transformerKey
        #expect(keys.contains { $0.contains(corners) })
        #expect(
            keys.contains(
                try WatermarkTransformer(watermark: logo, gravity: .southEast, offsetX: 10, offsetY: 12).transformerKey)
        )
        // 100x100 fits 10x10, times 2: 20x20, extended to 20x40, padded by 2, 4, 6 and 8.
        let sized = try Self.output(text, on: Self.image(width: 100, height: 100), watermark: logo)
        #expect(sized.width == 32 && sized.height == 48)
        // The first crop is in source pixels, then the dpr (at most 1 without enlarge) scales the result.
        let cropped = try Self.output("c:4:3/dpr:2", on: Self.image(width: 10, height: 10))
        #expect(cropped.width == 4 && cropped.height == 3)
        // imgproxy caps the dpr at what does not enlarge the source: padding stays 1 without `el`...
        let padded = try Self.output("pd:1/dpr:1.5", on: Self.image(width: 4, height: 4))
        #expect(padded.width == 6 && padded.height == 6)
        // ...and with it the image is 6x6 and the padding 1.5, rounded half to even, 2.
        let enlarged = try Self.output("pd:1/dpr:1.5/el:1", on: Self.image(width: 4, height: 4))
        #expect(enlarged.width == 10 && enlarged.height == 10)
    }

    @Test func relativeCropsAndWatermarkOffsetsAreFractionsOfTheImage() throws {
        let image = Self.image(width: 20, height: 10)
        let half = try Self.output("c:0.5:0:soea", on: image)
        #expect(half.width == 10 && half.height == 10)
        #expect(half.pixels == (try CropTransformer(x: 10, y: 0, width: 10, height: 10).transformFrame(image.pixels)))
        let logo = Self.image(width: 2, height: 2)
        let relative = try Self.output("wm:1:nowe:0.25:0.5", on: image, watermark: logo)
        let absolute = try WatermarkTransformer(watermark: logo, gravity: .northWest, offsetX: 5, offsetY: 5)
            .transformFrame(image.pixels)
        #expect(relative.pixels == absolute)
    }

    @Test func keysAreStableAndDistinct() throws {
        let logo = Self.image(width: 3, height: 3)
        let texts = [
            "rs:fit:100:100", "rs:fill:100:100", "rs:fit:100:101", "rs:fit:100:100:1", "rs:fit:100:100/g:sm",
            "rs:fill:100:100/g:no", "rs:fill:100:100/g:fp:0.5:0.2", "rs:fit:100:100/ra:box", "rs:fit:100:100/dpr:2",
            "t:10", "t:11", "t:10:fff", "rot:90", "rot:180", "rot:45/bg:fff", "fl", "fl:0:1", "fl:1:1",
            "c:10:10", "c:0.5:0.5", "c:10:10:so", "bl:1", "bl:2", "sh:1", "br:10", "co:2", "sa:0", "gs",
            "col:0.5", "col:0.5:f00", "col:0.5:f00:1:multiply", "rc:4", "rc:4:1", "ci", "ci:2",
            "rs:fit:10:10/ex:1", "rs:fit:10:10/ex:1:so", "pd:1", "pd:1:2", "bg:000", "f:jpg",
            "wm:0.5", "wm:0.5:no", "wm:0.5:no:0.1", "wm:0.5:no:2", "wm:0.5:ce:0:0:0.5",
            "bl:1/sh:1", "sh:1/bl:2",
        ]
        var seen: [String: String] = [:]
        for text in texts {
            let first = try #require(try ProcessingOptions(parsing: text).transformer(watermarkImage: logo))
                .transformerKey
            let again = try #require(try ProcessingOptions(parsing: text).transformer(watermarkImage: logo))
                .transformerKey
            #expect(first == again, "\(text) is not stable")
            if let other = seen[first] { Issue.record("\(text) and \(other) share the key \(first)") }
            seen[first] = text
        }
        // The same options in another order build the same key.
        let a = try #require(try ProcessingOptions(parsing: "bl:1/rs:fit:10:10/pd:2").transformer(watermarkImage: nil))
        let b = try #require(try ProcessingOptions(parsing: "pd:2/rs:fit:10:10/bl:1").transformer(watermarkImage: nil))
        #expect(a.transformerKey == b.transformerKey)
    }

    @Test func nothingToDoBuildsNoTransformer() throws {
        for text in ["", "q:80", "f:webp/q:50", "bl:0/rot:0/wm:0/pd:0"] {
            #expect(try ProcessingOptions(parsing: text).transformer(watermarkImage: nil) == nil, "\(text)")
        }
        // JPEG output without a background is flattened onto white: JPEG has no alpha.
        #expect(
            try Self.steps("f:jpg").map(\.transformerKey) == [FlattenTransformer(background: .white).transformerKey])
    }

    @Test func valuesSetInCodeAreCheckedLikeParsedOnes() throws {
        let cases: [(ProcessingOptions, String)] = {
            var cases: [(ProcessingOptions, String)] = []
            var o = ProcessingOptions(); o.blur = -1; cases.append((o, "bl"))
            o = ProcessingOptions(); o.width = -5; cases.append((o, "rs"))
            o = ProcessingOptions(); o.devicePixelRatio = .nan; cases.append((o, "dpr"))
            o = ProcessingOptions(); o.trim = .init(threshold: 300); cases.append((o, "t"))
            o = ProcessingOptions(); o.watermark = WatermarkOption(opacity: 2); cases.append((o, "wm"))
            o = ProcessingOptions();
            o.colorize = .init(opacity: 0.5, color: RGBAColor(red: 1, green: 2, blue: 3, alpha: 4))
            cases.append((o, "col"))
            o = ProcessingOptions(); o.padding = .init(top: -1, right: 0, bottom: 0, left: 0); cases.append((o, "pd"))
            o = ProcessingOptions(); o.gravity = .focalPoint(x: 2, y: 0); cases.append((o, "g"))
            return cases
        }()
        for (options, name) in cases {
            #expect { try options.transformer(watermarkImage: nil) } throws: {
                Self.isInvalidParameter($0, named: name)
            }
        }
    }

    @Test func aWatermarkNeedsAnImageAndAnEmptyOneIsRefusedByName() throws {
        let options = try ProcessingOptions(parsing: "wm:0.5")
        #expect { try options.transformer(watermarkImage: nil) } throws: { Self.isInvalidParameter($0, named: "wm") }
        let empty = Image(frames: [])
        #expect { try options.transformer(watermarkImage: empty) } throws: { Self.isInvalidParameter($0, named: "wm") }
    }

    @Test func animationsAreProcessedFrameByFrame() throws {
        let frames = (0..<4).map { index in
            ImageFrame(
                pixels: PixelBuffer(
                    width: 4, height: 2, layout: .gray8,
                    bytes: [UInt8](repeating: UInt8(index * 50), count: 8)),
                duration: .milliseconds(100 * (index + 1)))
        }
        let animation = try Image(validatingFrames: frames, loopCount: 2, format: .gif)
        let processed = try Self.output("pd:1/c:2:2", on: animation)
        #expect(processed.frameCount == 4 && processed.loopCount == 2)
        #expect(processed.frameDurations == [100, 200, 300, 400].map { .milliseconds($0) })
        let third = try processed.frame(at: 3)
        #expect(third.pixels.width == 4 && third.pixels.height == 4)
        #expect(third.pixels.rgba(x: 1, y: 1).r == 150)
    }
}

/// The cancellation check of `ProcessingTransformer`: asked before every step of every frame, so a request
/// nobody waits for stops after the step it is in.
@Suite struct ProcessingTransformerCancellationTests {
    /// Counts the frames its steps saw and holds the flag they raise.
    final class Probe: Sendable {
        /// Guards the count of frames seen.
        let seen = Mutex(0)
        /// Guards the cancellation flag.
        let flag = Mutex(false)
        func step(cancelAfter: Int) -> CountingStep { CountingStep(probe: self, cancelAfter: cancelAfter) }
    }

    /// A step that counts the frames it saw and raises the flag after `cancelAfter` of them.
    struct CountingStep: FrameTransformer {
        let probe: Probe
        let cancelAfter: Int
        var transformerKey: String { "count" }
        func transformFrame(_ pixels: PixelBuffer) throws(ImageError) -> PixelBuffer {
            let count = probe.seen.withLock {
                $0 += 1; return $0
            }
            if count >= cancelAfter { probe.flag.withLock { $0 = true } }
            return pixels
        }
    }

    @Test func aStillStopsAtTheNextStep() throws {
        let probe = Probe()
        let first = probe.step(cancelAfter: 1)
        let second = probe.step(cancelAfter: 100)
        let transformer = ProcessingTransformer(
            steps: [first, second, second], isCancelled: { probe.flag.withLock { $0 } })
        #expect(throws: ImageError.cancelled) {
            try transformer.transformed(ProcessingTransformerTests.image(width: 4, height: 3))
        }
        #expect(probe.seen.withLock { $0 } == 1, "the steps after the cancellation never ran")
        // Without the check the same steps run to the end.
        let unchecked = ProcessingTransformer(steps: [first, second, second])
        #expect(try unchecked.transformed(ProcessingTransformerTests.image(width: 4, height: 3)).width == 4)
    }

    @Test func anAnimationStopsAtTheNextFrame() throws {
        let frames = (0..<50).map { index in
            ImageFrame(
                pixels: PixelBuffer(
                    width: 2, height: 2, layout: .gray8, bytes: [UInt8](repeating: UInt8(index), count: 4)),
                duration: .milliseconds(50))
        }
        let probe = Probe()
        let transformer = ProcessingTransformer(
            steps: [probe.step(cancelAfter: 5)], isCancelled: { probe.flag.withLock { $0 } })
        let animated = try transformer.transformed(Image(frames: frames, loopCount: 0))
        let animation = try #require(animated.animation)
        var failure: (any Error)?
        for index in 0..<animation.frameCount {
            do { _ = try animation.frame(at: index) } catch { failure = error; break }
        }
        #expect(failure as? ImageError == .cancelled)
        #expect(probe.seen.withLock { $0 } == 5, "no frame after the cancellation was transformed")
    }

    @Test func optionsPassTheCheckToTheTransformer() throws {
        let built = try ProcessingOptions(parsing: "rs:fit:2:2/bl:1").transformer(
            watermarkImage: nil, isCancelled: { true })
        #expect(throws: ImageError.cancelled) {
            try #require(built as? ProcessingTransformer).transformed(
                ProcessingTransformerTests.image(width: 8, height: 8))
        }
    }
}
