import CLCMS2
import Foundation
import WebImageCore

/// The committed fixtures of scripts/reference/color-reference.py and profiles made here with Little CMS.
enum ColorFixtures {
    static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent()

    static func profile(_ name: String) throws -> Data {
        try Data(contentsOf: folder.appendingPathComponent("Profiles").appendingPathComponent(name))
    }

    static var displayP3: Data { get throws { try profile("display-p3.icc") } }
    static var cmykJPEG: Data { get throws { try Data(contentsOf: folder.appendingPathComponent("cmyk-tiles.jpg")) } }

    /// One line of color-reference.tsv.
    struct Reference {
        let profile: String
        let kind: String
        let x: Int
        let y: Int
        let input: [UInt8]
        let expected: [UInt8]
    }

    static func references(kind: String? = nil, profile: String? = nil) throws -> [Reference] {
        let text = try String(contentsOf: folder.appendingPathComponent("color-reference.tsv"), encoding: .utf8)
        return text.split(separator: "\n").filter { !$0.hasPrefix("#") }.map { line in
            let fields = line.split(separator: "\t").map(String.init)
            let numbers = { (field: String) in field.split(separator: ",").map { UInt8($0)! } }
            return Reference(
                profile: fields[0], kind: fields[1], x: Int(fields[2])!, y: Int(fields[3])!,
                input: numbers(fields[4]), expected: numbers(fields[5]))
        }.filter { (kind == nil || $0.kind == kind) && (profile == nil || $0.profile == profile) }
    }

    /// Bytes of a profile lcms makes: `make` returns a profile handle, which this closes.
    static func lcmsProfile(_ make: () -> cmsHPROFILE?) -> Data {
        let profile = make()!
        defer { cmsCloseProfile(profile) }
        var size: UInt32 = 0
        _ = cmsSaveProfileToMem(profile, nil, &size)
        var bytes = [UInt8](repeating: 0, count: Int(size))
        _ = cmsSaveProfileToMem(profile, &bytes, &size)
        return Data(bytes)
    }

    /// lcms's own sRGB profile: equivalent to sRGB, so conversions through it change nothing.
    static var sRGB: Data { lcmsProfile { cmsCreate_sRGBProfile() } }

    /// An RGB profile with D65 white, sRGB's primaries and a plain `gamma` curve.
    static func gammaRGB(_ gamma: Double) -> Data {
        lcmsProfile {
            var white = cmsCIExyY()
            cmsWhitePointFromTemp(&white, 6504)
            var primaries = cmsCIExyYTRIPLE(
                Red: cmsCIExyY(x: 0.64, y: 0.33, Y: 1), Green: cmsCIExyY(x: 0.30, y: 0.60, Y: 1),
                Blue: cmsCIExyY(x: 0.15, y: 0.06, Y: 1))
            let curve = cmsBuildGamma(nil, gamma)
            defer { cmsFreeToneCurve(curve) }
            var curves: [OpaquePointer?] = [curve, curve, curve]
            return cmsCreateRGBProfile(&white, &primaries, &curves)
        }
    }

    /// `jpeg` with its ICC profile (APP2 "ICC_PROFILE" markers) replaced by `profile` in one marker
    /// (at most 65,519 bytes), placed where the first one was.
    static func replacingICCProfile(in jpeg: Data, with profile: Data) -> Data {
        let bytes = [UInt8](jpeg)
        let iccHeader = Array("ICC_PROFILE\0".utf8)
        var output: [UInt8] = [0xFF, 0xD8]
        var offset = 2
        var inserted = false
        // Markers up to the first scan (SOS, 0xDA), each FF xx LL LL + payload.
        while offset + 4 <= bytes.count, bytes[offset] == 0xFF, bytes[offset + 1] != 0xDA {
            let length = Int(bytes[offset + 2]) << 8 | Int(bytes[offset + 3])
            let segment = Array(bytes[offset..<offset + 2 + length])
            if bytes[offset + 1] == 0xE2, Array(segment[4..<min(segment.count, 16)]) == iccHeader {
                if !inserted {
                    let payload = iccHeader + [1, 1] + [UInt8](profile)
                    output +=
                        [0xFF, 0xE2, UInt8((payload.count + 2) >> 8), UInt8((payload.count + 2) & 0xFF)] + payload
                    inserted = true
                }
            } else {
                output += segment
            }
            offset += 2 + length
        }
        return Data(output + bytes[offset...])
    }

    /// One row of RGB pixels.
    static func rgbRow(_ samples: [[UInt8]]) -> PixelBuffer {
        PixelBuffer(width: samples.count, height: 1, layout: .rgb8, bytes: samples.flatMap { $0 })
    }

    /// Largest difference of any channel between two byte arrays of the same length.
    static func maxDifference(_ a: [UInt8], _ b: [UInt8]) -> Int {
        zip(a, b).map { abs(Int($0) - Int($1)) }.max() ?? 0
    }
}
