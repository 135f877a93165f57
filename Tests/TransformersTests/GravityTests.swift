import Testing
import WebImageCore
import WebImageTransformers

@Suite struct GravityTests {
    private let image = PixelBuffer(width: 10, height: 8, layout: .gray8)

    @Test(arguments: [
        (Gravity.center, 3, 2), (.north, 3, 0), (.south, 3, 4), (.east, 6, 2), (.west, 0, 2),
        (.northEast, 6, 0), (.northWest, 0, 0), (.southEast, 6, 4), (.southWest, 0, 4),
    ])
    func compassGravitiesPlaceTheRegionOnTheirEdgeOrCorner(gravity: Gravity, x: Int, y: Int) {
        let origin = gravity.regionOrigin(regionWidth: 4, regionHeight: 4, in: image)
        #expect(origin.x == x && origin.y == y)
    }

    @Test func focalPointCentresTheRegionOnThePointAndStaysInside() {
        let middle = Gravity.focalPoint(x: 0.5, y: 0.5).regionOrigin(regionWidth: 4, regionHeight: 4, in: image)
        #expect(middle.x == 3 && middle.y == 2)
        let nearLeft = Gravity.focalPoint(x: 0.3, y: 0.75).regionOrigin(regionWidth: 4, regionHeight: 4, in: image)
        #expect(nearLeft.x == 1 && nearLeft.y == 4)  // centre (3, 6): y would be 4, exactly the bottom
        let corner = Gravity.focalPoint(x: 1, y: 0).regionOrigin(regionWidth: 4, regionHeight: 4, in: image)
        #expect(corner.x == 6 && corner.y == 0)
    }

    @Test func aRegionAsLargeAsTheImageStartsAtTheOrigin() {
        for gravity: Gravity in [.center, .southEast, .focalPoint(x: 0.9, y: 0.9), .smart] {
            let origin = gravity.regionOrigin(regionWidth: 10, regionHeight: 8, in: image)
            #expect(origin.x == 0 && origin.y == 0)
            let larger = gravity.regionOrigin(regionWidth: 12, regionHeight: 9, in: image)
            #expect(larger.x == 0 && larger.y == 0)
        }
    }

    @Test func theSizeOnlyFormPlacesASmallImageOnALargerCanvas() {
        let origin = Gravity.southEast.regionOrigin(
            regionWidth: 3, regionHeight: 2, containerWidth: 10, containerHeight: 10)
        #expect(origin.x == 7 && origin.y == 8)
        let smart = Gravity.smart.regionOrigin(regionWidth: 4, regionHeight: 4, containerWidth: 10, containerHeight: 8)
        #expect(smart.x == 3 && smart.y == 2)
    }

    @Test func focalPointsOutsideTheImageAreRejected() {
        for gravity: Gravity in [.focalPoint(x: -0.1, y: 0.5), .focalPoint(x: 0.5, y: 1.5), .focalPoint(x: .nan, y: 0)]
        {
            #expect(throws: ImageError.self) { try gravity.validate() }
        }
        #expect(throws: Never.self) { try Gravity.focalPoint(x: 0, y: 1).validate() }
    }

    @Test func descriptionsAreDistinct() {
        let all: [Gravity] = [
            .center, .north, .south, .east, .west, .northEast, .northWest, .southEast, .southWest,
            .focalPoint(x: 0.25, y: 0.75), .focalPoint(x: 0.75, y: 0.25), .smart,
        ]
        #expect(Set(all.map(\.description)).count == all.count)
        #expect(Gravity.focalPoint(x: 0.1, y: 0.2).description == "focalPoint(0.1,0.2)")
    }
}

@Suite struct RGBAColorTests {
    @Test(arguments: [
        ("fff", RGBAColor.white), ("#000", .black), ("ffffff", .white), ("00000000", .transparent),
        ("FF800080", RGBAColor(red: 255, green: 128, blue: 0, alpha: 128)),
        ("1234", RGBAColor(red: 0x11, green: 0x22, blue: 0x33, alpha: 0x44)),
    ])
    func hexTextIsRead(text: String, color: RGBAColor) throws {
        #expect(try RGBAColor(hex: text) == color)
    }

    @Test(arguments: ["", "ff", "fffff", "fffffffff", "ggg", "#", "12 456", "+12345"])
    func badHexTextIsRejected(text: String) {
        #expect(throws: ImageError.self) { try RGBAColor(hex: text) }
    }

    @Test func hexStringRoundTrips() throws {
        let colors = [RGBAColor.white, .black, .transparent, RGBAColor(red: 1, green: 2, blue: 254, alpha: 16)]
        for color in colors { #expect(try RGBAColor(hex: color.hexString) == color) }
        #expect(RGBAColor.white.hexString == "ffffff")
        #expect(RGBAColor(red: 1, green: 2, blue: 254, alpha: 16).hexString == "0102fe10")
    }
}
