import WebImageCore

/// Finds the window of an image that draws the eye (``Gravity/smart``).
///
/// The image is shrunk by whole blocks to at most ``analysisSide`` pixels on its long side, each block
/// averaged with premultiplied alpha (so transparent areas count as nothing). Every pixel of that copy
/// scores for edge energy (a Laplacian of luma), colour saturation and skin-like hue, as libvips's
/// `attention` strategy does; the window of the requested size (shrunk the same way) with the highest
/// summed score wins, found with a summed-area table. On a flat image every window scores the same and
/// the centred one is kept.
enum SmartCrop {
    /// Long side of the scored copy: detail finer than 1/128 of the image cannot move a crop visibly, and
    /// a 128 x 128 map is scored in well under a millisecond.
    static let analysisSide = 128
    /// Weight of edge energy; edges are what makes texture and objects stand out from flat backgrounds.
    static let edgeWeight: Float = 1
    /// Weight of saturation (0...1 scaled to 0...255): vivid colour draws the eye, but less than detail.
    static let saturationWeight: Float = 0.4
    /// Weight of skin-likeness (0...1 scaled to 0...255): faces and people matter most in photos.
    static let skinWeight: Float = 1.5
    /// Direction of typical skin colour in RGB (a unit vector); the cosine to it decides how skin-like a
    /// pixel is.
    static let skinDirection: (r: Float, g: Float, b: Float) = {
        let (r, g, b): (Float, Float, Float) = (0.78, 0.57, 0.44)
        let length = (r * r + g * g + b * b).squareRoot()
        return (r / length, g / length, b / length)
    }()
    /// Cosine to ``skinDirection`` below which a colour is not skin at all (grays sit near 0.97).
    static let skinThreshold: Float = 0.985
    /// Luma range (0...255) in which saturation and skin count: too dark or too bright carries no colour.
    static let colourLumaRange: ClosedRange<Float> = 20...235

    /// Top-left corner of the best `regionWidth` x `regionHeight` window inside `pixels` (sizes no larger
    /// than the image's).
    static func regionOrigin(regionWidth: Int, regionHeight: Int, in pixels: PixelBuffer) -> (x: Int, y: Int) {
        let spareX = pixels.width - regionWidth, spareY = pixels.height - regionHeight
        guard spareX > 0 || spareY > 0 else { return (0, 0) }
        let map = AttentionMap(
            pixels, block: max(1, (max(pixels.width, pixels.height) + analysisSide - 1) / analysisSide))
        let windowWidth = min(map.width, max(1, Int((Double(regionWidth) / Double(map.block)).rounded())))
        let windowHeight = min(map.height, max(1, Int((Double(regionHeight) / Double(map.block)).rounded())))
        let best = map.bestWindow(width: windowWidth, height: windowHeight)
        // Centre the full-size region on the centre of the best window.
        let centreX = (Double(best.x) + Double(windowWidth) / 2) * Double(map.block)
        let centreY = (Double(best.y) + Double(windowHeight) / 2) * Double(map.block)
        let x = Int((centreX - Double(regionWidth) / 2).rounded())
        let y = Int((centreY - Double(regionHeight) / 2).rounded())
        return (min(max(x, 0), spareX), min(max(y, 0), spareY))
    }
}

/// The attention score of every block of an image, and the best window over it.
struct AttentionMap {
    let width: Int
    let height: Int
    /// Source pixels per map pixel along each axis.
    let block: Int
    private(set) var scores: [Float]

    init(_ pixels: PixelBuffer, block: Int) {
        self.block = block
        width = (pixels.width + block - 1) / block
        height = (pixels.height + block - 1) / block
        let (red, green, blue) = Self.blockAverages(pixels, block: block, width: width, height: height)
        scores = [Float](repeating: 0, count: width * height)
        var luma = [Float](repeating: 0, count: width * height)
        for i in 0..<luma.count { luma[i] = 0.299 * red[i] + 0.587 * green[i] + 0.114 * blue[i] }
        for y in 0..<height {
            for x in 0..<width {
                let i = y * width + x
                let neighbours =
                    luma[y * width + max(x - 1, 0)] + luma[y * width + min(x + 1, width - 1)]
                    + luma[max(y - 1, 0) * width + x] + luma[min(y + 1, height - 1) * width + x]
                let edge = abs(4 * luma[i] - neighbours)
                scores[i] =
                    SmartCrop.edgeWeight * edge
                    + Self.colourScore(red: red[i], green: green[i], blue: blue[i], luma: luma[i])
            }
        }
    }

    /// Saturation and skin score of one averaged colour.
    private static func colourScore(red: Float, green: Float, blue: Float, luma: Float) -> Float {
        guard SmartCrop.colourLumaRange.contains(luma) else { return 0 }
        let high = max(red, green, blue), low = min(red, green, blue)
        let saturation = (high - low) / high  // HSV saturation, 0...1
        let length = (red * red + green * green + blue * blue).squareRoot()
        let skin = SmartCrop.skinDirection
        let cosine = (red * skin.r + green * skin.g + blue * skin.b) / length
        let skinness = max(0, (cosine - SmartCrop.skinThreshold) / (1 - SmartCrop.skinThreshold))
        return 255 * (SmartCrop.saturationWeight * saturation + SmartCrop.skinWeight * skinness)
    }

    /// Mean red, green and blue of each `block` x `block` block (premultiplied: transparent pixels add black
    /// and count fully, so a transparent area scores as flat).
    private static func blockAverages(
        _ pixels: PixelBuffer, block: Int, width: Int, height: Int
    )
        -> ([Float], [Float], [Float])
    {
        var red = [Float](repeating: 0, count: width * height)
        var green = red, blue = red
        let bpp = pixels.layout.bytesPerPixel
        pixels.bytes.withUnsafeBufferPointer { bytes in
            red.withUnsafeMutableBufferPointer { r in
                green.withUnsafeMutableBufferPointer { g in
                    blue.withUnsafeMutableBufferPointer { b in
                        for y in 0..<pixels.height {
                            let row = y * pixels.bytesPerRow, mapRow = (y / block) * width
                            for x in 0..<pixels.width {
                                let o = row + x * bpp, m = mapRow + x / block
                                switch pixels.layout {
                                case .gray8:
                                    let v = Float(bytes[o])
                                    r[m] += v; g[m] += v; b[m] += v
                                case .rgb8:
                                    r[m] += Float(bytes[o]); g[m] += Float(bytes[o + 1]); b[m] += Float(bytes[o + 2])
                                case .rgba8:
                                    let a = Float(bytes[o + 3]) / 255
                                    r[m] += Float(bytes[o]) * a; g[m] += Float(bytes[o + 1]) * a;
                                    b[m] += Float(bytes[o + 2]) * a
                                }
                            }
                        }
                    }
                }
            }
        }
        // Every block has block x block pixels except along the right and bottom edges.
        for my in 0..<height {
            for mx in 0..<width {
                let count = Float(min(block, pixels.width - mx * block) * min(block, pixels.height - my * block))
                let m = my * width + mx
                red[m] /= count; green[m] /= count; blue[m] /= count
            }
        }
        return (red, green, blue)
    }

    /// Top-left corner of the `width` x `height` window with the highest summed score; ties (within a
    /// rounding margin) go to the window nearest the centre.
    func bestWindow(width windowWidth: Int, height windowHeight: Int) -> (x: Int, y: Int) {
        // Summed-area table with a zero row and column in front, in Double so large sums stay exact enough.
        let stride = width + 1
        var table = [Double](repeating: 0, count: stride * (height + 1))
        for y in 0..<height {
            var rowSum = 0.0
            for x in 0..<width {
                rowSum += Double(scores[y * width + x])
                table[(y + 1) * stride + x + 1] = table[y * stride + x + 1] + rowSum
            }
        }
        func windowSum(_ x: Int, _ y: Int) -> Double {
            table[(y + windowHeight) * stride + x + windowWidth] - table[y * stride + x + windowWidth]
                - table[(y + windowHeight) * stride + x] + table[y * stride + x]
        }
        let centre = ((width - windowWidth) / 2, (height - windowHeight) / 2)
        var best = centre, bestScore = windowSum(centre.0, centre.1)
        var bestDistance = 0
        // Scores differing by less than this are the same (sums of floats in different orders).
        let margin = 1e-6 * max(1, table[height * stride + width])
        for y in 0...(height - windowHeight) {
            for x in 0...(width - windowWidth) {
                let score = windowSum(x, y)
                let distance = abs(x - centre.0) + abs(y - centre.1)
                if score > bestScore + margin || (abs(score - bestScore) <= margin && distance < bestDistance) {
                    best = (x, y); bestScore = score; bestDistance = distance
                }
            }
        }
        return best
    }
}
