import Foundation
import WebImageCore

/// Sample files for `CoderContract`: the quadrants picture, opaque and with alpha, encoded by the coder
/// under test, so each coder's contract test needs no fixtures of its own.
public enum ContractSamples {
    public static func quadrants(encodedBy coder: any ImageCoder, as format: ImageFormat) throws -> [Data] {
        try [PixelLayout.rgb8, .rgba8].map { layout in
            try coder.encode(
                Image(pixels: TestPictures.quadrants(width: 64, height: 48, layout: layout)),
                as: format, options: EncodeOptions())
        }
    }
}
