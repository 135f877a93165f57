import Foundation
import Testing
import WebImageCore
import WebImageTransformers

@Suite("ResizeTransformer and StretchTransformer")
struct ResizeTransformerTests {
    static func picture(width: Int, height: Int, layout: PixelLayout = .rgb8) -> PixelBuffer {
        var pixels = PixelBuffer(width: width, height: height, layout: layout)
        for i in 0..<pixels.bytes.count {
            pixels.bytes[i] = UInt8((i * 7 + i / (width * layout.bytesPerPixel) * 13) % 256)
        }
        return pixels
    }

    func size(_ t: ResizeTransformer, _ width: Int, _ height: Int) throws -> String {
        let out = try t.transformFrame(Self.picture(width: width, height: height))
        return "\(out.width)x\(out.height)"
    }

    /// imgproxy's meanings, for a 300x200 image and a small 30x20 one.
    @Test func eachModeGivesTheExpectedSize() throws {
        let cases: [(ResizeMode, Int, Int, Bool, Int, Int, String)] = [
            (.fit, 64, 64, false, 300, 200, "64x43"),
            (.fit, 150, 0, false, 300, 200, "150x100"),
            (.fit, 0, 50, false, 300, 200, "75x50"),
            (.fit, 64, 64, false, 30, 20, "30x20"),
            (.fit, 64, 64, true, 30, 20, "64x43"),
            (.stretch, 64, 64, false, 300, 200, "64x64"),
            (.stretch, 150, 0, false, 300, 200, "150x100"),
            (.stretch, 64, 64, false, 30, 20, "30x20"),
            (.stretch, 64, 64, true, 30, 20, "64x64"),
            (.stretch, 64, 10, false, 30, 20, "30x10"),
            (.fill, 64, 64, false, 300, 200, "64x64"),
            (.fill, 100, 20, false, 300, 200, "100x20"),
            (.fill, 150, 0, false, 300, 200, "150x100"),
            (.fill, 64, 64, false, 30, 20, "30x20"),
            (.fill, 64, 64, true, 30, 20, "64x64"),
            (.fillDown, 64, 64, false, 30, 20, "20x20"),
            (.fillDown, 64, 32, false, 30, 20, "30x15"),
            (.fillDown, 64, 64, false, 300, 200, "64x64"),
            (.auto, 100, 50, false, 300, 200, "100x50"),
            (.auto, 50, 100, false, 300, 200, "50x33"),
            (.auto, 50, 100, false, 200, 300, "50x100"),
            (.fit, 0, 0, false, 300, 200, "300x200"),
        ]
        for (mode, w, h, enlarge, sw, sh, expected) in cases {
            let t = try ResizeTransformer(width: w, height: h, mode: mode, enlarge: enlarge)
            #expect(try size(t, sw, sh) == expected, "\(mode) \(w)x\(h) enlarge \(enlarge) of \(sw)x\(sh)")
        }
    }

    @Test func noResizeKeepsThePixels() throws {
        let source = Self.picture(width: 30, height: 20)
        #expect(try ResizeTransformer(width: 0, height: 0).transformFrame(source) == source)
        #expect(try ResizeTransformer(width: 64, height: 64).transformFrame(source) == source)
        #expect(try ResizeTransformer(width: 30, height: 20, mode: .stretch).transformFrame(source) == source)
    }

    /// A fill is one resample of the kept region: the same pixels as resizing the whole image and cropping.
    @Test(arguments: [Gravity.northWest, .southEast, .north, .west])
    func fillEqualsResizeThenCrop(gravity: Gravity) throws {
        let source = Self.picture(width: 300, height: 200, layout: .rgba8)
        let out = try ResizeTransformer(width: 64, height: 64, mode: .fill, gravity: gravity).transformFrame(source)
        let whole = ImageResampler.resample(source, width: 96, height: 64, filter: .lanczos3)
        let x: Int =
            switch gravity {
            case .northWest, .west: 0;
            case .southEast: 32;
            default: 16
            }
        var expected: [UInt8] = []
        for row in 0..<64 { expected += whole.bytes[(row * 96 + x) * 4..<(row * 96 + x + 64) * 4] }
        #expect(out.width == 64 && out.height == 64 && out.bytes == expected)
    }

    @Test func smartFillKeepsTheRequestedSize() throws {
        let out = try ResizeTransformer(width: 50, height: 50, mode: .fill, gravity: .smart)
            .transformFrame(Self.picture(width: 300, height: 200))
        #expect(out.width == 50 && out.height == 50)
    }

    @Test func transparentBackgroundsDoNotDarkenAFill() throws {
        var source = PixelBuffer(width: 120, height: 80, layout: .rgba8)
        for y in 20..<60 { for x in 30..<90 { for c in 0..<4 { source.bytes[(y * 120 + x) * 4 + c] = 255 } } }
        for filter in ResamplingFilter.allCases {
            let out = try ResizeTransformer(width: 37, height: 37, mode: .fill, filter: filter).transformFrame(source)
            for p in stride(from: 0, to: out.bytes.count, by: 4) where out.bytes[p + 3] > 0 {
                #expect(out.bytes[p] >= 254 && out.bytes[p + 1] >= 254 && out.bytes[p + 2] >= 254, "\(filter)")
            }
        }
    }

    @Test func badValuesAreRejected() {
        for (w, h) in [(-1, 10), (10, -1), (ResizeTransformer.maximumSide + 1, 10), (10, Int.max), (Int.min, 0)] {
            #expect(throws: ImageError.self) { try ResizeTransformer(width: w, height: h) }
        }
        for point in [(1.5, 0.5), (0.5, -0.1), (Double.nan, 0.5), (0.5, .infinity)] {
            #expect(throws: ImageError.self) {
                try ResizeTransformer(width: 10, height: 10, gravity: .focalPoint(x: point.0, y: point.1))
            }
        }
        do {
            _ = try ResizeTransformer(width: -5, height: 1)
        } catch {
            guard case .invalidParameter(let name, _) = error else { Issue.record("\(error)"); return }
            #expect(name == "width")
        }
    }

    @Test func anEnlargementPastThePixelLimitFailsWithATypedError() throws {
        let t = try ResizeTransformer(width: 60_000, height: 60_000, mode: .stretch, enlarge: true)
        #expect(throws: ImageError.self) { try t.transformFrame(Self.picture(width: 2, height: 2)) }
    }

    @Test func keysAreStableAndDistinct() throws {
        #expect(
            try ResizeTransformer(width: 300, height: 200, mode: .fill).transformerKey
                == "resize(fill,300x200,center,enlarge=0,lanczos3)")
        var keys: Set<String> = []
        var count = 0
        for mode in ResizeMode.allCases {
            for filter in ResamplingFilter.allCases {
                for (w, h) in [(10, 0), (0, 10), (10, 10), (10, 11)] {
                    for enlarge in [false, true] {
                        for gravity in [
                            Gravity.center, .north, .smart, .focalPoint(x: 0.25, y: 0.75),
                            .focalPoint(x: 0.75, y: 0.25),
                        ] {
                            keys.insert(
                                try ResizeTransformer(
                                    width: w, height: h, mode: mode, gravity: gravity,
                                    enlarge: enlarge, filter: filter
                                ).transformerKey)
                            count += 1
                        }
                    }
                }
            }
        }
        #expect(keys.count == count)
    }

    @Test func animationsAreResizedFrameByFrame() throws {
        var frames: [ImageFrame] = []
        for i in 0..<3 {
            let value = UInt8(40 * i + 10)
            let pixels = PixelBuffer(
                width: 40, height: 20, layout: .rgba8,
                bytes: [UInt8](repeating: value, count: 40 * 20 * 4))
            frames.append(ImageFrame(pixels: pixels, duration: .milliseconds(100 * (i + 1))))
        }
        let image = Image(frames: frames, loopCount: 2)
        let out = try ResizeTransformer(width: 10, height: 10, mode: .fill).transformed(image)
        #expect(out.frameCount == 3 && out.loopCount == 2)
        for i in 0..<3 {
            let frame = try out.frame(at: i)
            #expect(frame.pixels.width == 10 && frame.pixels.height == 10)
            #expect(frame.pixels.bytes.allSatisfy { $0 == UInt8(40 * i + 10) })
            #expect(frame.duration == .milliseconds(100 * (i + 1)))
        }
    }

    /// Core's exact-size transformer: a 0 side keeps the shape, nothing crashes on odd sizes.
    @Test func resizingTransformerStretchesAndKeepsTheShapeForAZeroSide() {
        let image = Image(pixels: Self.picture(width: 300, height: 200))
        #expect(StretchTransformer(size: PixelSize(64)).transform(image, forKey: "")?.pixels.width == 64)
        #expect(StretchTransformer(size: PixelSize(64)).transform(image, forKey: "")?.pixels.height == 64)
        let tall = StretchTransformer(size: PixelSize(width: 0, height: 64)).transform(image, forKey: "")
        #expect(tall?.pixels.width == 96 && tall?.pixels.height == 64)
        let wide = StretchTransformer(size: PixelSize(width: 150, height: 0)).transform(image, forKey: "")
        #expect(wide?.pixels.width == 150 && wide?.pixels.height == 100)
        #expect(StretchTransformer(size: PixelSize(0)).transform(image, forKey: "") == nil)
        #expect(StretchTransformer(size: PixelSize(width: -5, height: 10)).transform(image, forKey: "") == nil)
    }
}
