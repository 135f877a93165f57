import CRawGIF
import Foundation
import WebImage

/// The animation section: a 100-frame 400x300 GIF and animated WebP made with our encoders.
/// Time to decode every frame beside giflib + a plain-C compositor, then memory held.
func runAnimationBenchmarks() {
    do { try animationBenchmarks() } catch { print("animation benchmarks failed: \(error)") }
}

/// Where the animation section leaves its GIF for the memory child processes.
private let gifFile = FileManager.default.temporaryDirectory.appendingPathComponent("coder-bench/animation.gif")
/// Where it leaves the same animation as WebP.
private let webpFile = FileManager.default.temporaryDirectory.appendingPathComponent("coder-bench/animation.webp")
private let thumbnailOptions = DecodeOptions(thumbnailPixelSize: PixelSize(100))

private func makeAnimation() -> Image {
    let frames = (0..<100).map { i -> ImageFrame in
        var pixels = PixelBuffer(width: 400, height: 300, layout: .rgba8)
        for y in 0..<300 {
            for x in 0..<400 {
                let o = (y * 400 + x) * 4
                let inBall = (x - i * 3) * (x - i * 3) + (y - 150) * (y - 150) < 2500
                pixels.bytes[o] = inBall ? 230 : UInt8(x * 255 / 400)
                pixels.bytes[o + 1] = inBall ? 40 : UInt8(y * 255 / 300)
                pixels.bytes[o + 2] = 120
                pixels.bytes[o + 3] = 255
            }
        }
        return ImageFrame(pixels: pixels, duration: .milliseconds(40))
    }
    return Image(frames: frames, loopCount: 0)
}

/// giflib + plain-C composition; `keepFrames` also copies every frame into a buffer held to the end.
private func rawDecodeAndCompose(_ data: Data, keepFrames: Bool = false) -> Int {
    var checksum: UInt32 = 0
    return data.withUnsafeBytes {
        Int(raw_gif_decode_compose($0.bindMemory(to: UInt8.self).baseAddress, $0.count, keepFrames ? 1 : 0, &checksum))
    }
}

/// Decodes every frame of `image` (composing it) and returns how many there were.
@discardableResult
private func walk(_ image: Image) throws -> Int {
    for index in 0..<image.frameCount { _ = try image.frame(at: index) }
    return image.frameCount
}

private func animationBenchmarks() throws {
    let animation = makeAnimation()
    let gif = try GIFCoder().encode(animation, as: .gif, options: EncodeOptions())
    let animatedWebP = try WebPCoder().encode(animation, as: .webp, options: EncodeOptions(quality: 0.8))
    try FileManager.default.createDirectory(at: gifFile.deletingLastPathComponent(), withIntermediateDirectories: true)
    try gif.write(to: gifFile)
    try animatedWebP.write(to: webpFile)
    let apng = try APNGCoder().encode(animation, as: .png, options: EncodeOptions())
    let ourFrames = try walk(GIFCoder().decode(gif, options: DecodeOptions()))
    precondition(rawDecodeAndCompose(gif) == 100 && ourFrames == 100, "both decoders must see 100 frames")

    print(
        """

        100-frame 400x300 GIF (\(gif.count / 1024) KB), best of 5; raw = giflib DGifSlurp + plain-C compositor on one
        canvas (for preloadAllFrames: + a copy of every frame held to the end). A lazy decode walks the file's
        block structure only and decompresses frame 0; the other frames are decompressed when shown.

        """)
    print(row(["case", "ours ms", "raw ms", "ratio"]))
    try compare(
        "GIF all frames, preloadAllFrames",
        ours: {
            _ = try GIFCoder().decode(gif, options: DecodeOptions(preloadAllFrames: true))
        }, raw: { _ = rawDecodeAndCompose(gif, keepFrames: true) })
    try compare(
        "GIF all frames, lazy",
        ours: {
            try walk(GIFCoder().decode(gif, options: DecodeOptions()))
        }, raw: { _ = rawDecodeAndCompose(gif) })
    try compare(
        "GIF decode only (index, frame 0)",
        ours: {
            _ = try GIFCoder().decode(gif, options: DecodeOptions())
        }, raw: { _ = rawDecodeAndCompose(gif) })
    try compare(
        "GIF 100 px thumbnail, all frames",
        ours: {
            try walk(GIFCoder().decode(gif, options: thumbnailOptions))
        }, raw: { _ = rawDecodeAndCompose(gif) })

    try compare(
        "WebP animation all frames, lazy (raw: WebPAnimDecoder)",
        ours: {
            try walk(WebPCoder().decode(animatedWebP, options: DecodeOptions()))
        }, raw: { _ = Raw.webpAnimationDecode(animatedWebP) })

    print("\nPeak memory added by one decode, fresh process per case (one 400x300 RGBA canvas = 0.46 MB)\n")
    print(row(["case", "peak MB", "canvases", ""]))
    let canvasMB = Double(400 * 300 * 4) / 1_048_576
    for (name, key) in [
        ("GIF frame 0 only (lazy)", "gif-frame0"), ("GIF every frame, lazy", "gif-walk"),
        ("GIF preloadAllFrames", "gif-preload"), ("GIF 100 px thumbnail, every frame", "gif-thumbnail"),
        ("WebP frame 0 only (lazy)", "gif-webp-frame0"), ("WebP preloadAllFrames", "gif-webp-preload"),
    ] {
        let memory = try peakMemoryOfChild(["memory", key])
        print(row([name, String(format: "%.1f", memory), String(format: "%.1f", memory / canvasMB), ""]))
    }

    let canvas = 400 * 300 * 4
    print("\n" + row(["canvases held (memoryCost / canvas)", "frame 0", "preload", ""]))
    for (name, data, coder) in [
        ("GIF", gif, GIFCoder() as any ImageCoder), ("WebP", animatedWebP, WebPCoder() as any ImageCoder),
        ("APNG", apng, APNGCoder() as any ImageCoder),
    ] {
        let lazy = try coder.decode(data, options: DecodeOptions())
        let all = try coder.decode(data, options: DecodeOptions(preloadAllFrames: true))
        print(
            row([
                name, String(format: "%.1f", Double(lazy.memoryCost) / Double(canvas)),
                String(format: "%.1f", Double(all.memoryCost) / Double(canvas)), "",
            ]))
    }
}

/// Child process: runs one animation case on the file the parent wrote and returns the peak memory it
/// added (MB).
func gifMemoryCase(_ name: String) throws -> Double {
    let data = try Data(contentsOf: name.hasPrefix("gif-webp-") ? webpFile : gifFile)
    let before = peakMemoryMB()
    switch name {
    case "gif-webp-frame0": _ = try WebPCoder().decode(data, options: DecodeOptions())
    case "gif-webp-preload": _ = try WebPCoder().decode(data, options: DecodeOptions(preloadAllFrames: true))
    case "gif-frame0": _ = try GIFCoder().decode(data, options: DecodeOptions())
    case "gif-walk": try walk(GIFCoder().decode(data, options: DecodeOptions()))
    case "gif-preload": _ = try GIFCoder().decode(data, options: DecodeOptions(preloadAllFrames: true))
    case "gif-thumbnail": try walk(GIFCoder().decode(data, options: thumbnailOptions))
    default: preconditionFailure("unknown case \(name)")
    }
    return peakMemoryMB() - before
}
