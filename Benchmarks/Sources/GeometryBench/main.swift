// geometry-bench: our Swift rotation and compositing against pixman's on a 12 MP image, side by side.
// The "ours" column is Swift: the bilinear sampler in SwiftRotation.swift for arbitrary angles (what
// RotateTransformer used before these numbers moved it to pixman; its own time is in the note), the
// transformers themselves for quarter turns and the watermark (which stayed Swift).
//
// pixman works on premultiplied 32-bit pixels (a8r8g8b8 / x8r8g8b8), so each pixman case is timed twice:
// the pixman call alone, and with the conversions from and to our layouts (RGB8, straight RGBA8) that a
// transformer built on it would have to pay. Best of `runs`; release build:
//   cd Benchmarks && swift build -c release --product geometry-bench && .build/release/geometry-bench
import CPixmanBench
import Foundation
import WebImageCore
import WebImageTransformers

/// 4000 x 3000, a 12 MP photo's size.
let width = 4000, height = 3000
/// Runs per case; the best is reported (the machine is shared, so the minimum is the least noisy).
let runs = 3

/// Best thread CPU time of `runs` runs, in milliseconds. CPU time rather than wall time because the
/// machine is shared (load averages past 10 on 2 cores make wall time mostly waiting); every case here
/// runs on one thread, ours and pixman's alike.
func milliseconds(_ body: () throws -> Void) rethrows -> Double {
    func now() -> Double {
        var t = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t)
        return Double(t.tv_sec) * 1000 + Double(t.tv_nsec) / 1e6
    }
    var best = Double.infinity
    for _ in 0..<runs {
        let start = now()
        try body()
        best = min(best, now() - start)
    }
    return best
}

/// Smooth gradients with a fine texture, so every bilinear weight matters.
func photo(layout: PixelLayout, width: Int, height: Int) -> PixelBuffer {
    var bytes = [UInt8](repeating: 0, count: width * height * layout.bytesPerPixel)
    var i = 0
    for y in 0..<height {
        for x in 0..<width {
            bytes[i] = UInt8(x * 255 / width); bytes[i + 1] = UInt8(y * 255 / height);
            bytes[i + 2] = UInt8((x ^ y) & 255)
            if layout == .rgba8 { bytes[i + 3] = UInt8((x + y) % 256) }
            i += layout.bytesPerPixel
        }
    }
    return PixelBuffer(width: width, height: height, layout: layout, bytes: bytes)
}

// MARK: - Conversions a pixman-based transformer would need

func xrgb(_ p: PixelBuffer) -> [UInt32] {
    var out = [UInt32](repeating: 0, count: p.width * p.height)
    p.bytes.withUnsafeBufferPointer { s in
        out.withUnsafeMutableBufferPointer { d in
            for i in 0..<d.count {
                d[i] = 0xFF00_0000 | UInt32(s[i * 3]) << 16 | UInt32(s[i * 3 + 1]) << 8 | UInt32(s[i * 3 + 2])
            }
        }
    }
    return out
}

func rgb(_ pixels: [UInt32], width: Int, height: Int) -> PixelBuffer {
    var out = [UInt8](repeating: 0, count: width * height * 3)
    pixels.withUnsafeBufferPointer { s in
        out.withUnsafeMutableBufferPointer { d in
            for i in 0..<s.count {
                d[i * 3] = UInt8(truncatingIfNeeded: s[i] >> 16); d[i * 3 + 1] = UInt8(truncatingIfNeeded: s[i] >> 8)
                d[i * 3 + 2] = UInt8(truncatingIfNeeded: s[i])
            }
        }
    }
    return PixelBuffer(width: width, height: height, layout: .rgb8, bytes: out)
}

func premultiplied(_ p: PixelBuffer) -> [UInt32] {
    var out = [UInt32](repeating: 0, count: p.width * p.height)
    p.bytes.withUnsafeBufferPointer { s in
        out.withUnsafeMutableBufferPointer { d in
            for i in 0..<d.count {
                let a = UInt32(s[i * 4 + 3])
                func m(_ c: UInt8) -> UInt32 { (UInt32(c) * a + 127) / 255 }
                d[i] = a << 24 | m(s[i * 4]) << 16 | m(s[i * 4 + 1]) << 8 | m(s[i * 4 + 2])
            }
        }
    }
    return out
}

func straight(_ pixels: [UInt32], width: Int, height: Int) -> PixelBuffer {
    var out = [UInt8](repeating: 0, count: width * height * 4)
    pixels.withUnsafeBufferPointer { s in
        out.withUnsafeMutableBufferPointer { d in
            for i in 0..<s.count {
                let a = s[i] >> 24
                guard a > 0 else { continue }
                func u(_ shift: UInt32) -> UInt8 { UInt8(min(255, ((s[i] >> shift) & 0xFF) * 255 + a / 2) / a) }
                d[i * 4] = u(16); d[i * 4 + 1] = u(8); d[i * 4 + 2] = u(0); d[i * 4 + 3] = UInt8(a)
            }
        }
    }
    return PixelBuffer(width: width, height: height, layout: .rgba8, bytes: out)
}

// MARK: - pixman calls

/// Pillow's rotate(expand=True) mapping, as RotateTransformer uses: output size and output-to-input matrix.
func rotation(degrees: Double, width: Int, height: Int) -> (Int, Int, [Double]) {
    let r = degrees * .pi / 180
    var m = [cos(r), sin(r), 0, -sin(r), cos(r), 0]
    let (w, h) = (Double(width), Double(height))
    func map(_ x: Double, _ y: Double) -> (Double, Double) { (m[0] * x + m[1] * y + m[2], m[3] * x + m[4] * y + m[5]) }
    (m[2], m[5]) = map(-w / 2, -h / 2); m[2] += w / 2; m[5] += h / 2
    let c = [(0.0, 0.0), (w, 0), (w, h), (0, h)].map { map($0.0, $0.1) }
    let nw = Int(c.map(\.0).max()!.rounded(.up) - c.map(\.0).min()!.rounded(.down))
    let nh = Int(c.map(\.1).max()!.rounded(.up) - c.map(\.1).min()!.rounded(.down))
    (m[2], m[5]) = map(-Double(nw - width) / 2, -Double(nh - height) / 2)
    return (nw, nh, m)
}

func fixed(_ v: Double) -> pixman_fixed_t { pixman_fixed_t((v * 65536).rounded()) }

/// `source` (w x h, 32-bit) drawn through `matrix` onto `dest` (dw x dh) with `op` and `filter`.
func pixmanTransform(
    _ source: inout [UInt32], _ w: Int, _ h: Int, format: pixman_format_code_t, into dest: inout [UInt32],
    _ dw: Int, _ dh: Int, matrix m: [Double], op: pixman_op_t, filter: pixman_filter_t
) {
    source.withUnsafeMutableBufferPointer { s in
        dest.withUnsafeMutableBufferPointer { d in
            let src = pixman_image_create_bits(format, Int32(w), Int32(h), s.baseAddress, Int32(w * 4))
            let dst = pixman_image_create_bits(PIXMAN_a8r8g8b8, Int32(dw), Int32(dh), d.baseAddress, Int32(dw * 4))
            var t = pixman_transform()
            t.matrix = (
                (fixed(m[0]), fixed(m[1]), fixed(m[2])), (fixed(m[3]), fixed(m[4]), fixed(m[5])), (0, 0, fixed(1))
            )
            pixman_image_set_transform(src, &t)
            pixman_image_set_filter(src, filter, nil, 0)
            pixman_image_set_repeat(src, PIXMAN_REPEAT_NONE)
            pixman_image_composite32(op, src, nil, dst, 0, 0, 0, 0, 0, 0, Int32(dw), Int32(dh))
            pixman_image_unref(src)
            pixman_image_unref(dst)
        }
    }
}

/// `overlay` (premultiplied, ow x oh) OVER `base` at (x, y) through a solid mask of `opacity`.
func pixmanOver(
    _ overlay: inout [UInt32], _ ow: Int, _ oh: Int, onto base: inout [UInt32], _ bw: Int, _ bh: Int,
    x: Int, y: Int, opacity: Double
) {
    overlay.withUnsafeMutableBufferPointer { s in
        base.withUnsafeMutableBufferPointer { d in
            let src = pixman_image_create_bits(PIXMAN_a8r8g8b8, Int32(ow), Int32(oh), s.baseAddress, Int32(ow * 4))
            let dst = pixman_image_create_bits(PIXMAN_x8r8g8b8, Int32(bw), Int32(bh), d.baseAddress, Int32(bw * 4))
            var color = pixman_color_t(red: 0, green: 0, blue: 0, alpha: UInt16(opacity * 65535))
            let mask = pixman_image_create_solid_fill(&color)
            pixman_image_composite32(
                PIXMAN_OP_OVER, src, mask, dst, 0, 0, 0, 0, Int32(x), Int32(y), Int32(ow), Int32(oh))
            pixman_image_unref(mask); pixman_image_unref(src); pixman_image_unref(dst)
        }
    }
}

// MARK: - Cases

func row(_ name: String, ours: Double, pixmanCore: Double, pixmanWhole: Double, note: String = "") {
    print(
        name.padding(toLength: 34, withPad: " ", startingAt: 0),
        String(
            format: "%9.1f %9.1f %9.1f %8.2f %8.2f  %@", ours, pixmanCore, pixmanWhole, ours / pixmanCore,
            ours / pixmanWhole, note))
}

func maxDifference(_ a: PixelBuffer, _ b: PixelBuffer) -> Int {
    guard a.width == b.width, a.height == b.height, a.layout == b.layout else { return -1 }
    var worst = 0
    let bpp = a.layout.bytesPerPixel
    for y in 1..<(a.height - 1) {
        for x in 1..<(a.width - 1) {
            let o = (y * a.width + x) * bpp
            for c in 0..<bpp { worst = max(worst, abs(Int(a.bytes[o + c]) - Int(b.bytes[o + c]))) }
        }
    }
    return worst
}

print("geometry-bench: \(width)x\(height), best of \(runs) runs, thread CPU milliseconds")
print(
    "case".padding(toLength: 34, withPad: " ", startingAt: 0),
    String(format: "%9@ %9@ %9@ %8@ %8@  %@", "ours", "pixman", "pixman+cv", "ours/px", "ours/pxcv", "note"))

let rgbPhoto = photo(layout: .rgb8, width: width, height: height)
let rgbaPhoto = photo(layout: .rgba8, width: width, height: height)

do {
    // Rotate 30 degrees onto white, opaque RGB: bilinear.
    let (nw, nh, m) = rotation(degrees: 30, width: width, height: height)
    let transformer = try RotateTransformer(degrees: 30, background: .white)
    let swift = SwiftRotation(degrees: 30, sourceWidth: width, sourceHeight: height)
    var oursOut = rgbPhoto
    let ours = milliseconds { oursOut = swift.apply(to: rgbPhoto, background: .white) }
    let product = try milliseconds { _ = try transformer.transformFrame(rgbPhoto) }
    var source = xrgb(rgbPhoto)
    var dest = [UInt32](repeating: 0xFFFF_FFFF, count: nw * nh)
    let core = milliseconds {
        dest = [UInt32](repeating: 0xFFFF_FFFF, count: nw * nh)
        pixmanTransform(
            &source, width, height, format: PIXMAN_x8r8g8b8, into: &dest, nw, nh, matrix: m, op: PIXMAN_OP_OVER,
            filter: PIXMAN_FILTER_BILINEAR)
    }
    var pixmanOut = rgbPhoto
    let whole = milliseconds {
        var s = xrgb(rgbPhoto)
        var d = [UInt32](repeating: 0xFFFF_FFFF, count: nw * nh)
        pixmanTransform(
            &s, width, height, format: PIXMAN_x8r8g8b8, into: &d, nw, nh, matrix: m, op: PIXMAN_OP_OVER,
            filter: PIXMAN_FILTER_BILINEAR)
        pixmanOut = rgb(d, width: nw, height: nh)
    }
    row(
        "rotate 30 deg, RGB, bilinear", ours: ours, pixmanCore: core, pixmanWhole: whole,
        note: "max |Swift - pixman| \(maxDifference(oursOut, pixmanOut)); RotateTransformer (pixman) "
            + String(format: "%.1f", product))
}

do {
    // Rotate 30 degrees, straight RGBA onto transparent: premultiplied bilinear.
    let (nw, nh, m) = rotation(degrees: 30, width: width, height: height)
    let transformer = try RotateTransformer(degrees: 30)
    let swift = SwiftRotation(degrees: 30, sourceWidth: width, sourceHeight: height)
    let ours = milliseconds { _ = swift.apply(to: rgbaPhoto, background: .transparent) }
    let product = try milliseconds { _ = try transformer.transformFrame(rgbaPhoto) }
    var source = premultiplied(rgbaPhoto)
    var dest = [UInt32](repeating: 0, count: nw * nh)
    let core = milliseconds {
        dest = [UInt32](repeating: 0, count: nw * nh)
        pixmanTransform(
            &source, width, height, format: PIXMAN_a8r8g8b8, into: &dest, nw, nh, matrix: m, op: PIXMAN_OP_SRC,
            filter: PIXMAN_FILTER_BILINEAR)
    }
    let whole = milliseconds {
        var s = premultiplied(rgbaPhoto)
        var d = [UInt32](repeating: 0, count: nw * nh)
        pixmanTransform(
            &s, width, height, format: PIXMAN_a8r8g8b8, into: &d, nw, nh, matrix: m, op: PIXMAN_OP_SRC,
            filter: PIXMAN_FILTER_BILINEAR)
        _ = straight(d, width: nw, height: nh)
    }
    row(
        "rotate 30 deg, RGBA, bilinear", ours: ours, pixmanCore: core, pixmanWhole: whole,
        note: "RotateTransformer (pixman) " + String(format: "%.1f", product))
}

do {
    // Quarter turn, RGB: ours moves bytes; pixman with a nearest-filter 90-degree transform.
    let m: [Double] = [0, 1, 0, -1, 0, Double(height)]
    let transformer = try RotateTransformer(degrees: 90)
    var oursOut = rgbPhoto
    let ours = try milliseconds { oursOut = try transformer.transformFrame(rgbPhoto) }
    var source = xrgb(rgbPhoto)
    var dest = [UInt32](repeating: 0, count: width * height)
    let core = milliseconds {
        pixmanTransform(
            &source, width, height, format: PIXMAN_x8r8g8b8, into: &dest, height, width, matrix: m, op: PIXMAN_OP_SRC,
            filter: PIXMAN_FILTER_NEAREST)
    }
    var pixmanOut = rgbPhoto
    let whole = milliseconds {
        var s = xrgb(rgbPhoto)
        var d = [UInt32](repeating: 0, count: width * height)
        pixmanTransform(
            &s, width, height, format: PIXMAN_x8r8g8b8, into: &d, height, width, matrix: m, op: PIXMAN_OP_SRC,
            filter: PIXMAN_FILTER_NEAREST)
        pixmanOut = rgb(d, width: height, height: width)
    }
    row(
        "rotate 90 deg, RGB", ours: ours, pixmanCore: core, pixmanWhole: whole,
        note: oursOut == pixmanOut ? "identical" : "differ")
}

do {
    // Watermark: 2000 x 1500 straight RGBA at 50 % opacity over the RGB photo.
    let markPixels = photo(layout: .rgba8, width: 2000, height: 1500)
    let transformer = try WatermarkTransformer(watermark: Image(pixels: markPixels), gravity: .southEast, opacity: 0.5)
    var oursOut = rgbPhoto
    let ours = try milliseconds { oursOut = try transformer.transformFrame(rgbPhoto) }
    var overlay = premultiplied(markPixels)
    var base = xrgb(rgbPhoto)
    let core = milliseconds {
        pixmanOver(&overlay, 2000, 1500, onto: &base, width, height, x: width - 2000, y: height - 1500, opacity: 0.5)
    }
    var pixmanOut = rgbPhoto
    let whole = milliseconds {
        var o = premultiplied(markPixels)
        var b = xrgb(rgbPhoto)
        pixmanOver(&o, 2000, 1500, onto: &b, width, height, x: width - 2000, y: height - 1500, opacity: 0.5)
        pixmanOut = rgb(b, width: width, height: height)
    }
    row(
        "watermark 2000x1500 @50%, RGB", ours: ours, pixmanCore: core, pixmanWhole: whole,
        note: "max |ours - pixman| \(maxDifference(oursOut, pixmanOut))")
}

do {
    // No pixman peer: rounded corners (radius 200) and a circle, for the record.
    let corners = try RoundedCornersTransformer(radius: 200, borderWidth: 4)
    let ours = try milliseconds { _ = try corners.transformFrame(rgbPhoto) }
    print(
        "rounded corners r=200+border RGB".padding(toLength: 34, withPad: " ", startingAt: 0),
        String(format: "%9.1f", ours))
    let framed = try PaddingTransformer(top: 200, right: 200, bottom: 200, left: 200, background: .white)
        .transformFrame(photo(layout: .rgb8, width: width - 400, height: height - 400))
    let trim = try TrimTransformer()
    let trimmed = try milliseconds { _ = try trim.transformFrame(framed) }
    print(
        "trim 200 px white border, RGB".padding(toLength: 34, withPad: " ", startingAt: 0),
        String(format: "%9.1f", trimmed))
    let smart = try CropTransformer(width: 1000, height: 1000, gravity: .smart)
    let smartTime = try milliseconds { _ = try smart.transformFrame(rgbPhoto) }
    print(
        "smart crop 1000x1000, RGB".padding(toLength: 34, withPad: " ", startingAt: 0),
        String(format: "%9.1f", smartTime))
}
