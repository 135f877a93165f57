/// The sizes a ``ResizeTransformer`` gives one image: what the whole image is scaled to, and the part of
/// that kept (the whole of it except for fills).
public struct ResizePlan: Sendable, Hashable {
    /// Size of the whole image once scaled.
    public var scaledWidth: Int
    public var scaledHeight: Int
    /// Size of the part kept: the output size. Equal to the scaled size unless a fill crops.
    public var width: Int
    public var height: Int

    /// Whether part of the scaled image is cropped away.
    public var crops: Bool { width != scaledWidth || height != scaledHeight }
}

extension ResizeTransformer {
    /// The plan for an image of `sourceWidth` x `sourceHeight`, or nil when it is left unchanged (no size
    /// given, or the plan keeps it as it is).
    public func plan(sourceWidth: Int, sourceHeight: Int) -> ResizePlan? {
        guard sourceWidth > 0, sourceHeight > 0, width > 0 || height > 0 else { return nil }
        let w = Double(sourceWidth), h = Double(sourceHeight)
        // Scale factors each side asks for; a side of 0 takes the other's (keep the aspect ratio).
        let askedX = width > 0 ? Double(width) / w : nil
        let askedY = height > 0 ? Double(height) / h : nil
        var mode = self.mode
        if mode == .auto {
            let sameOrientation = width > 0 && height > 0 && (sourceWidth >= sourceHeight) == (width >= height)
            mode = sameOrientation ? .fill : .fit
        }
        let limit: Double = enlarge ? .infinity : 1
        let plan: ResizePlan
        switch mode {
        case .stretch:
            let fx = min(limit, askedX ?? askedY!), fy = min(limit, askedY ?? askedX!)
            let sw = Self.side(w * fx), sh = Self.side(h * fy)
            plan = ResizePlan(scaledWidth: sw, scaledHeight: sh, width: sw, height: sh)
        case .fit, .auto:
            let f = min(limit, min(askedX ?? .infinity, askedY ?? .infinity))
            let sw = Self.side(w * f), sh = Self.side(h * f)
            plan = ResizePlan(scaledWidth: sw, scaledHeight: sh, width: sw, height: sh)
        case .fill, .fillDown:
            let f = min(limit, max(askedX ?? 0, askedY ?? 0))
            let sw = Self.side(w * f), sh = Self.side(h * f)
            var cw = width > 0 ? min(width, sw) : sw
            var ch = height > 0 ? min(height, sh) : sh
            if mode == .fillDown && width > 0 && height > 0 && (cw < width || ch < height) {
                // The largest rectangle of the box's shape inside the scaled image.
                if sw * height >= sh * width {
                    ch = sh
                    cw = min(sw, Self.side(Double(sh) * Double(width) / Double(height)))
                } else {
                    cw = sw
                    ch = min(sh, Self.side(Double(sw) * Double(height) / Double(width)))
                }
            }
            plan = ResizePlan(scaledWidth: sw, scaledHeight: sh, width: cw, height: ch)
        }
        if plan.width == sourceWidth && plan.height == sourceHeight && !plan.crops { return nil }
        return plan
    }

    /// A scaled length in whole pixels, at least 1.
    private static func side(_ length: Double) -> Int { max(1, Int(length.rounded())) }
}
