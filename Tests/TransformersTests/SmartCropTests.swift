import Testing
import WebImageCore
import WebImageTransformers

@Suite struct SmartCropTests {
    /// A flat gray RGB image with a black-and-white checkerboard (the detail) at (`objectX`, `objectY`).
    private func flatWithDetail(width: Int, height: Int, objectX: Int, objectY: Int, side: Int) -> PixelBuffer {
        var bytes = [UInt8](repeating: 128, count: width * height * 3)
        for y in objectY..<(objectY + side) {
            for x in objectX..<(objectX + side) {
                let value: UInt8 = (x / 2 + y / 2) % 2 == 0 ? 0 : 255
                let o = (y * width + x) * 3
                bytes[o] = value; bytes[o + 1] = value; bytes[o + 2] = value
            }
        }
        return PixelBuffer(width: width, height: height, layout: .rgb8, bytes: bytes)
    }

    private func contains(_ origin: (x: Int, y: Int), size: Int, object: (x: Int, y: Int, side: Int)) -> Bool {
        origin.x <= object.x && origin.x + size >= object.x + object.side
            && origin.y <= object.y && origin.y + size >= object.y + object.side
    }

    @Test func aDetailedObjectInAFlatImageIsKept() {
        let image = flatWithDetail(width: 300, height: 200, objectX: 230, objectY: 150, side: 40)
        let origin = Gravity.smart.regionOrigin(regionWidth: 100, regionHeight: 100, in: image)
        #expect(contains(origin, size: 100, object: (230, 150, 40)), "\(origin)")
    }

    @Test func theObjectIsFoundInALargeImageScoredDownsampled() throws {
        let image = flatWithDetail(width: 1600, height: 900, objectX: 60, objectY: 700, side: 120)
        let origin = Gravity.smart.regionOrigin(regionWidth: 400, regionHeight: 400, in: image)
        #expect(contains(origin, size: 400, object: (60, 700, 120)), "\(origin)")
        let cropped = try CropTransformer(width: 400, height: 400, gravity: .smart).transformFrame(image)
        #expect(cropped.width == 400 && cropped.height == 400)
    }

    @Test func aSaturatedOrSkinColouredPatchDrawsTheCrop() {
        for colour: (UInt8, UInt8, UInt8) in [(230, 20, 20), (224, 172, 140)] {
            var bytes = [UInt8](repeating: 90, count: 240 * 120 * 3)
            for y in 40..<80 {
                for x in 10..<50 { let o = (y * 240 + x) * 3; (bytes[o], bytes[o + 1], bytes[o + 2]) = colour }
            }
            let image = PixelBuffer(width: 240, height: 120, layout: .rgb8, bytes: bytes)
            let origin = Gravity.smart.regionOrigin(regionWidth: 80, regionHeight: 120, in: image)
            #expect(origin.x <= 10 && origin.x + 80 >= 50, "\(colour) \(origin)")
        }
    }

    @Test func aFlatImageIsCroppedInTheCentre() {
        for layout in PixelLayout.allCases {
            let flat = PixelBuffer(
                width: 90, height: 60, layout: layout,
                bytes: [UInt8](repeating: 200, count: 90 * 60 * layout.bytesPerPixel))
            let origin = Gravity.smart.regionOrigin(regionWidth: 30, regionHeight: 60, in: flat)
            #expect(origin.x == 30 && origin.y == 0)
        }
    }

    @Test func transparentAreasDoNotCount() {
        // Opaque detail on the right, a transparent "checkerboard" (alpha 0, colour noise) on the left.
        var bytes = [UInt8](repeating: 0, count: 200 * 50 * 4)
        for y in 0..<50 {
            for x in 0..<200 {
                let o = (y * 200 + x) * 4
                let value: UInt8 = (x / 2 + y / 2) % 2 == 0 ? 0 : 255
                if x < 50 { (bytes[o], bytes[o + 1], bytes[o + 2], bytes[o + 3]) = (value, 255 - value, value, 0) }
                if x >= 150 { (bytes[o], bytes[o + 1], bytes[o + 2], bytes[o + 3]) = (value, value, value, 255) }
            }
        }
        let image = PixelBuffer(width: 200, height: 50, layout: .rgba8, bytes: bytes)
        let origin = Gravity.smart.regionOrigin(regionWidth: 50, regionHeight: 50, in: image)
        #expect(origin.x >= 150, "\(origin)")
    }
}
