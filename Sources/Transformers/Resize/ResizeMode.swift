/// How ``ResizeTransformer`` fits an image to the width and height it is given; imgproxy's resizing types
/// (`force`, `fit`, `fill`, `fill-down`, `auto`), so the processing-option text maps one to one.
public enum ResizeMode: String, Sendable, Hashable, CaseIterable {
    /// Exactly the given size, the shape not kept (imgproxy's `force`). SDWebImage's `.fill` scale mode.
    case stretch
    /// The largest size that fits inside the box, keeping the shape (imgproxy's `fit`; CSS `contain`).
    case fit
    /// The smallest size that covers the box, keeping the shape, then cropped to the box at the gravity
    /// (imgproxy's `fill`; CSS `cover`). Without enlarging, a smaller image is only cropped, so the result
    /// may be smaller than the box and of another shape.
    case fill
    /// As ``fill``, but when the result would be smaller than the box it is cropped to the box's shape
    /// (imgproxy's `fill-down`): a small image still comes out with the requested aspect ratio.
    case fillDown
    /// ``fill`` when the image and the box have the same orientation (both landscape or both portrait;
    /// square counts as landscape), otherwise ``fit`` (imgproxy's `auto`).
    case auto
}
