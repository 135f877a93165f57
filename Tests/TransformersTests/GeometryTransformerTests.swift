import Testing
import WebImageCore
import WebImageTransformers

private func gray(_ width: Int, _ height: Int, _ values: [UInt8]) -> PixelBuffer {
    PixelBuffer(width: width, height: height, layout: .gray8, bytes: values)
}

@Suite struct CropTransformerTests {
    @Test(arguments: PixelLayout.allCases)
    func aRectangleKeepsExactlyThosePixels(layout: PixelLayout) throws {
        let input = GeometryFixtures.distinct(width: 7, height: 5, layout: layout)
        let output = try CropTransformer(x: 2, y: 1, width: 3, height: 2).transformFrame(input)
        #expect(output.width == 3 && output.height == 2 && output.layout == layout)
        for y in 0..<2 { for x in 0..<3 { #expect(output.rgba(x: x, y: y) == input.rgba(x: x + 2, y: y + 1)) } }
    }

    @Test func aRectanglePastTheImageIsCutToIt() throws {
        let input = GeometryFixtures.distinct(width: 7, height: 5, layout: .rgb8)
        let output = try CropTransformer(x: 5, y: 3, width: 10, height: 10).transformFrame(input)
        #expect(output.width == 2 && output.height == 2)
        #expect(output.rgba(x: 1, y: 1) == input.rgba(x: 6, y: 4))
        #expect(try CropTransformer(x: 9, y: 0, width: 2, height: 2).transformFrame(input) == input)
    }

    @Test func aGravityCropKeepsTheRegionTheGravityNames() throws {
        let input = GeometryFixtures.distinct(width: 8, height: 6, layout: .rgba8)
        let output = try CropTransformer(width: 3, height: 4, gravity: .southEast).transformFrame(input)
        #expect(output.width == 3 && output.height == 4)
        #expect(output.rgba(x: 0, y: 0) == input.rgba(x: 5, y: 2))
        let larger = try CropTransformer(width: 30, height: 4).transformFrame(input)
        #expect(larger.width == 8 && larger.height == 4 && larger.rgba(x: 0, y: 0) == input.rgba(x: 0, y: 1))
    }

    @Test func animatedFramesAreCroppedEach() throws {
        let frames = (0..<3).map { i in
            ImageFrame(pixels: gray(4, 2, [UInt8](repeating: UInt8(i * 50), count: 8)), duration: .milliseconds(100))
        }
        let output = try CropTransformer(x: 1, y: 0, width: 2, height: 1).transformed(
            Image(frames: frames, loopCount: 2))
        #expect(output.frameCount == 3 && output.loopCount == 2)
        #expect(try output.frame(at: 2).pixels.bytes == [100, 100])
        #expect(output.width == 2 && output.height == 1)
    }
}

@Suite struct CanvasTransformerTests {
    @Test func paddingSurroundsTheImageInTheBackgroundColour() throws {
        let output = try PaddingTransformer(top: 1, right: 2, bottom: 0, left: 1, background: .white)
            .transformFrame(gray(2, 1, [10, 20]))
        #expect(output.layout == .gray8 && output.width == 5 && output.height == 2)
        #expect(output.bytes == [255, 255, 255, 255, 255, 255, 10, 20, 255, 255])
    }

    @Test func aTranslucentBackgroundMakesRGBAAndAColouredOneRGB() throws {
        let transparent = try PaddingTransformer(top: 0, right: 1, bottom: 0, left: 0).transformFrame(gray(1, 1, [9]))
        #expect(transparent.layout == .rgba8 && transparent.bytes == [9, 9, 9, 255, 0, 0, 0, 0])
        let red = try PaddingTransformer(
            top: 0, right: 1, bottom: 0, left: 0, background: RGBAColor(red: 255, green: 0, blue: 0)
        )
        .transformFrame(gray(1, 1, [9]))
        #expect(red.layout == .rgb8 && red.bytes == [9, 9, 9, 255, 0, 0])
    }

    @Test func extendPlacesTheImageByGravityAndNeverShrinks() throws {
        let input = GeometryFixtures.distinct(width: 2, height: 2, layout: .rgb8)
        let output = try ExtendTransformer(width: 5, height: 3, gravity: .southEast, background: .black).transformFrame(
            input)
        #expect(output.width == 5 && output.height == 3 && output.layout == .rgb8)
        #expect(output.rgba(x: 3, y: 1) == input.rgba(x: 0, y: 0))
        #expect(output.rgba(x: 0, y: 0) == (0, 0, 0, 255))
        let wide = try ExtendTransformer(width: 1, height: 4).transformFrame(input)
        #expect(
            wide.width == 2 && wide.height == 4
                && wide.rgba(x: 0, y: 1) == (
                    input.rgba(x: 0, y: 0).r, input.rgba(x: 0, y: 0).g, input.rgba(x: 0, y: 0).b, 255
                ))
        #expect(try ExtendTransformer(width: 0, height: 0).transformFrame(input) == input)
    }

    @Test func flattenMixesAlphaIntoTheBackground() throws {
        let input = PixelBuffer(width: 2, height: 1, layout: .rgba8, bytes: [255, 0, 0, 128, 0, 0, 255, 0])
        let output = try FlattenTransformer().transformFrame(input)
        #expect(output.layout == .rgb8 && output.bytes == [255, 127, 127, 255, 255, 255])
        let opaque = gray(1, 1, [3])
        #expect(try FlattenTransformer(background: .black).transformFrame(opaque) == opaque)
    }

    /// Every colour, alpha and background level: the multiply-and-shift division is the rounded one.
    @Test func flattenRoundsEveryLevelAsTheFormulaSays() throws {
        let levels = (0...255).map { UInt8($0) }
        let input = PixelBuffer(
            width: 256, height: 256, layout: .rgba8,
            bytes: levels.flatMap { alpha in levels.flatMap { value in [value, value, value, alpha] } })
        for back in [UInt8(0), 1, 77, 128, 254, 255] {
            let output = try FlattenTransformer(background: RGBAColor(red: back, green: back, blue: back))
                .transformFrame(input)
            var mismatches = 0
            for alpha in 0...255 {
                for value in 0...255
                where Int(output.bytes[(alpha * 256 + value) * 3]) != (value * alpha + Int(back) * (255 - alpha) + 127)
                    / 255
                {
                    mismatches += 1
                }
            }
            #expect(mismatches == 0, "background \(back)")
        }
    }
}

@Suite struct OrientationTransformerTests {
    private let input = gray(3, 2, [1, 2, 3, 4, 5, 6])

    @Test func flopMirrorsLeftRightAndFlipTopBottom() throws {
        #expect(
            try FlipTransformer(horizontal: true, vertical: false).transformFrame(input).bytes == [3, 2, 1, 6, 5, 4])
        #expect(
            try FlipTransformer(horizontal: false, vertical: true).transformFrame(input).bytes == [4, 5, 6, 1, 2, 3])
        #expect(
            try FlipTransformer(horizontal: true, vertical: true).transformFrame(input).bytes == [6, 5, 4, 3, 2, 1])
    }

    @Test func quarterTurnsAreExactAndClockwise() throws {
        let right = try RotateTransformer(degrees: 90).transformFrame(input)
        #expect(right.width == 2 && right.height == 3 && right.bytes == [4, 1, 5, 2, 6, 3])
        let left = try RotateTransformer(degrees: -90).transformFrame(input)
        #expect(left.width == 2 && left.height == 3 && left.bytes == [3, 6, 2, 5, 1, 4])
        #expect(try RotateTransformer(degrees: 180).transformFrame(input).bytes == [6, 5, 4, 3, 2, 1])
        #expect(try RotateTransformer(degrees: 720).transformFrame(input) == input)
    }

    @Test(arguments: PixelLayout.allCases)
    func fourQuarterTurnsGiveTheSameBytes(layout: PixelLayout) throws {
        let input = GeometryFixtures.distinct(width: 13, height: 7, layout: layout)
        var pixels = input
        let turn = try RotateTransformer(degrees: 90, background: .white)
        for _ in 0..<4 { pixels = try turn.transformFrame(pixels) }
        #expect(pixels == input)
        let half = try RotateTransformer(degrees: 180).transformFrame(input)
        #expect(half == (try FlipTransformer(horizontal: true, vertical: true).transformFrame(input)))
    }

    @Test func anglesNormaliseIntoOneKey() throws {
        #expect(try RotateTransformer(degrees: -270).transformerKey == RotateTransformer(degrees: 90).transformerKey)
        #expect(try RotateTransformer(degrees: 450).degrees == 90)
        #expect(try RotateTransformer(degrees: -0.0).transformerKey == RotateTransformer(degrees: 360).transformerKey)
    }

    @Test func aTranslucentImageStaysTranslucentOnAnOpaqueBackground() throws {
        // Half-transparent red, turned 45 degrees onto opaque blue.
        let red = PixelBuffer(
            width: 10, height: 10, layout: .rgba8, bytes: (0..<100).flatMap { _ in [UInt8(255), 0, 0, 128] })
        let output = try RotateTransformer(degrees: 45, background: RGBAColor(red: 0, green: 0, blue: 255))
            .transformFrame(red)
        #expect(output.layout == .rgba8 && output.width == 16 && output.height == 16)  // as Pillow's expand
        #expect(output.rgba(x: 8, y: 8) == (255, 0, 0, 128))
        #expect(output.rgba(x: 0, y: 0) == (0, 0, 255, 255))
        // Along the edges the two mix, more opaque than the image alone.
        let mixed = (0..<16).flatMap { y in (0..<16).map { x in output.rgba(x: x, y: y) } }.filter {
            $0.r > 0 && $0.b > 0
        }
        #expect(!mixed.isEmpty)
        #expect(mixed.allSatisfy { $0.a > 128 })
    }

    @Test func grayOnAGrayBackgroundStaysGray() throws {
        let output = try RotateTransformer(degrees: 10, background: .white).transformFrame(
            GeometryFixtures.distinct(width: 9, height: 5, layout: .gray8))
        #expect(output.layout == .gray8)
        #expect(output.bytes[0] == 255)
    }

    @Test func arbitraryRotationHasNoDarkFringes() throws {
        let white = PixelBuffer(
            width: 20, height: 12, layout: .rgba8, bytes: [UInt8](repeating: 255, count: 20 * 12 * 4))
        let output = try RotateTransformer(degrees: 30).transformFrame(white)
        #expect(output.layout == .rgba8)
        var partial = 0
        for y in 0..<output.height {
            for x in 0..<output.width {
                let p = output.rgba(x: x, y: y)
                if p.a > 0 { #expect(p.r == 255 && p.g == 255 && p.b == 255) }
                if p.a > 0 && p.a < 255 { partial += 1 }
            }
        }
        #expect(partial > 0, "the edges are antialiased")
    }
}

@Suite struct TrimTransformerTests {
    /// A 10 x 8 white image with a red 3 x 2 block at (4, 3) and near-white noise within the threshold.
    private func framed() -> PixelBuffer {
        var bytes = [UInt8](repeating: 255, count: 10 * 8 * 3)
        for y in 3..<5 { for x in 4..<7 { let o = (y * 10 + x) * 3; bytes[o + 1] = 0; bytes[o + 2] = 0 } }
        bytes[(0 * 10 + 9) * 3] = 250  // within 10 of white: still border
        bytes[(7 * 10 + 0) * 3 + 1] = 246
        return PixelBuffer(width: 10, height: 8, layout: .rgb8, bytes: bytes)
    }

    @Test func uniformBordersAreCutExactly() throws {
        let output = try TrimTransformer().transformFrame(framed())
        #expect(output.width == 3 && output.height == 2)
        #expect(output.bytes == [UInt8](repeating: 0, count: 18).enumerated().map { $0.offset % 3 == 0 ? 255 : 0 })
    }

    @Test func aThresholdBelowTheNoiseKeepsTheNoisyEdges() throws {
        let output = try TrimTransformer(threshold: 4).transformFrame(framed())
        #expect(output.width == 10 && output.height == 8)  // noise in the top-right and bottom-left corners
    }

    @Test func equalSidesCutTheSmallerAmountFromBoth() throws {
        let output = try TrimTransformer(equalHorizontal: true).transformFrame(framed())
        #expect(output.width == 4 && output.height == 2)  // 4 left, 3 right -> 3 each
        #expect(output.rgba(x: 0, y: 0) == (255, 255, 255, 255) && output.rgba(x: 1, y: 0) == (255, 0, 0, 255))
        let top = try TrimTransformer(equalVertical: true).transformFrame(
            try CropTransformer(x: 0, y: 1, width: 10, height: 7).transformFrame(framed()))
        #expect(top.width == 3 && top.height == 3)  // 2 above, 3 below -> 2 each: 7 - 4
    }

    @Test func anExplicitColourAndAnAllBorderImage() throws {
        let input = gray(3, 3, [0, 0, 0, 0, 50, 0, 0, 0, 0])
        #expect(try TrimTransformer(color: .black).transformFrame(input).bytes == [50])
        #expect(try TrimTransformer(color: .white).transformFrame(input) == input)
        let flat = gray(2, 2, [7, 7, 7, 7])
        #expect(try TrimTransformer().transformFrame(flat) == flat)
    }

    @Test func alphaCountsAsAChannel() throws {
        let input = PixelBuffer(width: 3, height: 1, layout: .rgba8, bytes: [0, 0, 0, 0, 0, 0, 0, 255, 0, 0, 0, 0])
        #expect(try TrimTransformer().transformFrame(input).bytes == [0, 0, 0, 255])
    }
}

@Suite struct RoundedCornersTransformerTests {
    @Test func theBorderFollowsTheOutlineInsideTheImage() throws {
        let red = PixelBuffer(
            width: 20, height: 20, layout: .rgb8, bytes: (0..<400).flatMap { _ in [UInt8(255), 0, 0] })
        let blue = RGBAColor(red: 0, green: 0, blue: 255)
        let output = try RoundedCornersTransformer(radius: 5, borderWidth: 2, borderColor: blue).transformFrame(red)
        #expect(output.rgba(x: 10, y: 0) == (0, 0, 255, 255))
        #expect(output.rgba(x: 10, y: 1) == (0, 0, 255, 255))
        #expect(output.rgba(x: 10, y: 2) == (255, 0, 0, 255))
        #expect(output.rgba(x: 10, y: 10) == (255, 0, 0, 255))
        #expect(output.rgba(x: 0, y: 0).a == 0)
        let corner = output.rgba(x: 1, y: 2)  // on the curve: partly border
        #expect(corner.a > 0 && corner.b > 0)
    }

    @Test func translucentEdgesKeepTheirColour() throws {
        let white = PixelBuffer(
            width: 16, height: 16, layout: .rgba8, bytes: [UInt8](repeating: 255, count: 16 * 16 * 4))
        for output in [
            try RoundedCornersTransformer(radius: 6).transformFrame(white),
            try CircleTransformer().transformFrame(white),
        ] {
            for y in 0..<16 {
                for x in 0..<16 {
                    let p = output.rgba(x: x, y: y)
                    if p.a > 0 { #expect(p.r == 255 && p.g == 255 && p.b == 255) }
                }
            }
        }
    }

    @Test func aCircleIsCutFromTheCentreSquare() throws {
        let input = GeometryFixtures.distinct(width: 12, height: 8, layout: .rgb8)
        let output = try CircleTransformer().transformFrame(input)
        #expect(output.width == 8 && output.height == 8 && output.layout == .rgba8)
        let centre = output.rgba(x: 4, y: 4), original = input.rgba(x: 6, y: 4)
        #expect(centre == (original.r, original.g, original.b, 255))
    }
}

@Suite struct WatermarkTransformerTests {
    private let whiteMark = Image(
        pixels: PixelBuffer(width: 2, height: 2, layout: .gray8, bytes: [255, 255, 255, 255]))

    @Test func theWatermarkSitsAtItsGravityMovedInward() throws {
        let black = gray(4, 4, [UInt8](repeating: 0, count: 16))
        let output = try WatermarkTransformer(watermark: whiteMark, gravity: .southEast, offsetX: 1, opacity: 0.5)
            .transformFrame(black)
        #expect(output.layout == .gray8)
        let expected: [UInt8] = [0, 0, 0, 0, 0, 0, 0, 0, 0, 128, 128, 0, 0, 128, 128, 0]
        #expect(output.bytes == expected)
        let northWest = try WatermarkTransformer(watermark: whiteMark, gravity: .northWest, offsetX: 3, offsetY: 3)
            .transformFrame(black)
        #expect(northWest.bytes == [UInt8](repeating: 0, count: 15) + [255])  // only one pixel still inside
    }

    @Test func scaleSizesTheWatermarkToAFractionOfTheWidth() throws {
        let black = PixelBuffer(width: 10, height: 10, layout: .rgb8, bytes: [UInt8](repeating: 0, count: 300))
        let output = try WatermarkTransformer(watermark: whiteMark, gravity: .northWest, scale: 0.5).transformFrame(
            black)
        #expect(output.rgba(x: 4, y: 4) == (255, 255, 255, 255))
        #expect(output.rgba(x: 5, y: 0) == (0, 0, 0, 255))
        #expect(output.rgba(x: 0, y: 5) == (0, 0, 0, 255))
    }

    /// imgproxy's `re`: the mark tiled with the offsets as spacing, an odd count of tiles centred on the
    /// image. 10 px with 2 px marks and 2 px spacing: three 4 px tiles (12 px) centred, so marks cover
    /// columns and rows 0-1, 4-5 and 8-9.
    @Test func replicationTilesTheMarkCentred() throws {
        let black = gray(10, 10, [UInt8](repeating: 0, count: 100))
        let output = try WatermarkTransformer(watermark: whiteMark, offsetX: 2, offsetY: 2, replicates: true)
            .transformFrame(black)
        let marked: Set<Int> = [0, 1, 4, 5, 8, 9]
        for y in 0..<10 {
            for x in 0..<10 {
                let expected: UInt8 = marked.contains(x) && marked.contains(y) ? 255 : 0
                #expect(output.rgba(x: x, y: y).r == expected, "(\(x), \(y))")
            }
        }
        // Without spacing the tiles touch: every pixel is covered.
        let full = try WatermarkTransformer(watermark: whiteMark, replicates: true).transformFrame(
            gray(5, 3, [UInt8](repeating: 0, count: 15)))
        #expect(full.bytes.allSatisfy { $0 == 255 })
        #expect(
            try WatermarkTransformer(watermark: whiteMark, replicates: true).transformerKey
                != WatermarkTransformer(watermark: whiteMark).transformerKey)
    }

    @Test func compositingOverTransparencyIsPremultiplied() throws {
        let clear = PixelBuffer(width: 2, height: 1, layout: .rgba8, bytes: [0, 0, 0, 0, 0, 0, 0, 0])
        let mark = Image(pixels: PixelBuffer(width: 1, height: 1, layout: .rgba8, bytes: [255, 255, 255, 100]))
        let output = try WatermarkTransformer(watermark: mark, gravity: .west, opacity: 0.5).transformFrame(clear)
        #expect(output.rgba(x: 0, y: 0) == (255, 255, 255, 50))
        #expect(output.rgba(x: 1, y: 0) == (0, 0, 0, 0))
    }

    @Test func aColouredWatermarkOnGrayMakesRGB() throws {
        let mark = Image(pixels: PixelBuffer(width: 1, height: 1, layout: .rgb8, bytes: [255, 0, 0]))
        let output = try WatermarkTransformer(watermark: mark, gravity: .center).transformFrame(
            gray(3, 3, [UInt8](repeating: 9, count: 9)))
        #expect(
            output.layout == .rgb8 && output.rgba(x: 1, y: 1) == (255, 0, 0, 255)
                && output.rgba(x: 0, y: 0) == (9, 9, 9, 255))
    }
}

@Suite struct GeometryParameterTests {
    @Test func badValuesAreRejected() {
        let mark = Image(pixels: PixelBuffer(width: 1, height: 1, layout: .gray8, bytes: [1]))
        let empty = Image(pixels: PixelBuffer(width: 0, height: 0, layout: .gray8))
        let attempts: [() throws -> Any] = [
            { try CropTransformer(x: -1, y: 0, width: 1, height: 1) },
            { try CropTransformer(x: 0, y: 0, width: 0, height: 1) },
            { try CropTransformer(width: 1, height: -3) },
            { try CropTransformer(width: 1, height: 1, gravity: .focalPoint(x: 2, y: 0)) },
            { try PaddingTransformer(top: -1, right: 0, bottom: 0, left: 0) },
            { try ExtendTransformer(width: -1, height: 0) },
            { try ExtendTransformer(width: 1 << 20, height: 1 << 20) },
            { try ExtendTransformer(width: 1, height: 1, gravity: .focalPoint(x: 0, y: -1)) },
            { try RoundedCornersTransformer(radius: -1) },
            { try RoundedCornersTransformer(radius: .infinity) },
            { try RoundedCornersTransformer(radius: 1, borderWidth: .nan) },
            { try CircleTransformer(borderWidth: -2) },
            { try RotateTransformer(degrees: .nan) },
            { try RotateTransformer(degrees: -.infinity) },
            { try TrimTransformer(threshold: -1) },
            { try TrimTransformer(threshold: 256) },
            { try TrimTransformer(threshold: .nan) },
            { try WatermarkTransformer(watermark: mark, opacity: 1.5) },
            { try WatermarkTransformer(watermark: mark, opacity: -0.1) },
            { try WatermarkTransformer(watermark: mark, scale: 0) },
            { try WatermarkTransformer(watermark: mark, scale: 2) },
            { try WatermarkTransformer(watermark: mark, scale: .nan) },
            { try WatermarkTransformer(watermark: empty) },
            { try WatermarkTransformer(watermark: mark, gravity: .focalPoint(x: .nan, y: 0.5)) },
        ]
        for (index, attempt) in attempts.enumerated() {
            #expect(throws: ImageError.self, "attempt \(index)") { try attempt() }
        }
    }

    @Test func hugeOutputsAreRefusedWhenTheyWouldBeMade() throws {
        let padding = try PaddingTransformer(top: 0, right: Int.max, bottom: 0, left: Int.max)
        #expect(throws: ImageError.self) { try padding.transformFrame(gray(1, 1, [0])) }
        let big = try PaddingTransformer(top: 20_000, right: 0, bottom: 0, left: 20_000)
        #expect(throws: ImageError.self) { try big.transformFrame(gray(1, 1, [0])) }
    }

    @Test func keysAreStableAndDistinct() throws {
        let mark = Image(pixels: PixelBuffer(width: 1, height: 1, layout: .gray8, bytes: [1]))
        let otherMark = Image(pixels: PixelBuffer(width: 1, height: 1, layout: .gray8, bytes: [2]))
        let make: () throws -> [any ImageTransformer] = {
            [
                try CropTransformer(x: 1, y: 2, width: 3, height: 4),
                try CropTransformer(x: 2, y: 1, width: 3, height: 4),
                try CropTransformer(width: 3, height: 4), try CropTransformer(width: 3, height: 4, gravity: .smart),
                try CropTransformer(width: 3, height: 4, gravity: .focalPoint(x: 0.1, y: 0.2)),
                try PaddingTransformer(top: 1, right: 2, bottom: 3, left: 4),
                try PaddingTransformer(top: 4, right: 3, bottom: 2, left: 1),
                try PaddingTransformer(top: 1, right: 2, bottom: 3, left: 4, background: .white),
                try ExtendTransformer(width: 5, height: 6), try ExtendTransformer(width: 5, height: 6, gravity: .north),
                try ExtendTransformer(width: 5, height: 6, background: .black),
                try RoundedCornersTransformer(radius: 4), try RoundedCornersTransformer(radius: 4.5),
                try RoundedCornersTransformer(radius: 4, borderWidth: 1),
                try RoundedCornersTransformer(radius: 4, borderWidth: 1, borderColor: .black),
                try CircleTransformer(), try CircleTransformer(borderWidth: 2),
                try CircleTransformer(borderWidth: 2, borderColor: .black),
                FlipTransformer(horizontal: true, vertical: false), FlipTransformer(horizontal: false, vertical: true),
                FlipTransformer(horizontal: true, vertical: true),
                try RotateTransformer(degrees: 90), try RotateTransformer(degrees: 30),
                try RotateTransformer(degrees: 30, background: .white),
                try RotateTransformer(degrees: 30.5),
                try TrimTransformer(), try TrimTransformer(threshold: 5), try TrimTransformer(color: .white),
                try TrimTransformer(equalHorizontal: true), try TrimTransformer(equalVertical: true),
                FlattenTransformer(), FlattenTransformer(background: .black),
                try WatermarkTransformer(watermark: mark), try WatermarkTransformer(watermark: otherMark),
                try WatermarkTransformer(watermark: mark, gravity: .north),
                try WatermarkTransformer(watermark: mark, offsetX: 1),
                try WatermarkTransformer(watermark: mark, offsetY: 1),
                try WatermarkTransformer(watermark: mark, opacity: 0.5),
                try WatermarkTransformer(watermark: mark, scale: 0.5),
            ]
        }
        let keys = try make().map(\.transformerKey)
        #expect(Set(keys).count == keys.count, "\(keys)")
        #expect(try make().map(\.transformerKey) == keys)
        #expect(keys.allSatisfy { !$0.contains(" ") })
    }
}

@Suite struct AnimatedGeometryTests {
    /// Three gray frames: a 6 x 4 canvas of 0 with a block of 200 at a place that moves each frame.
    private func movingBlock() -> Image {
        let frames = (0..<3).map { i in
            var bytes = [UInt8](repeating: 0, count: 24)
            for y in 1..<3 { for x in (1 + i)..<(3 + i) { bytes[y * 6 + x] = 200 } }
            return ImageFrame(pixels: gray(6, 4, bytes), duration: .milliseconds(100))
        }
        return Image(frames: frames, loopCount: 0)
    }

    @Test func trimCutsEveryFrameByTheFirstFramesBorder() throws {
        let output = try TrimTransformer().transformed(movingBlock())
        #expect(output.frameCount == 3)
        #expect(output.width == 2 && output.height == 2)
        #expect(try output.frame(at: 0).pixels.bytes == [200, 200, 200, 200])
        #expect(try output.frame(at: 2).pixels.bytes == [0, 0, 0, 0])  // the block moved away; same rectangle
        #expect(try TrimTransformer().transform(movingBlock(), forKey: "k")?.width == 2)
    }

    @Test func aSmartCropKeepsOneWindowAcrossFrames() throws {
        let output = try CropTransformer(width: 2, height: 4, gravity: .smart).transformed(movingBlock())
        #expect(output.frameCount == 3 && output.width == 2 && output.height == 4)
        let first = try output.frame(at: 0).pixels.bytes
        #expect(first.filter { $0 == 200 }.count == 4)  // the block of the first frame is in the window
        #expect(try output.frame(at: 2).pixels.bytes.filter { $0 == 200 }.isEmpty)  // moved out, not followed
    }
}
