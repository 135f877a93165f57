import Foundation
import WebImageCore

/// The duties every `ImageCoder` has, checked on sample files of its formats.
///
/// ```swift
/// @Test func myCoderKeepsItsContract() {
///     let violations = CoderContract(coder: PPMCoder(), samples: [ppmData]).violations()
///     #expect(violations.isEmpty, "\(violations)")
/// }
/// ```
///
/// The checks: every sample decodes; truncated and byte-flipped copies either decode or throw (a crash or
/// a hang fails the test process itself); a pixel limit below the image's size is refused with
/// `.imageTooLarge` or `.decodeBudgetExceeded`; a thumbnail size is honoured; and, for a coder that encodes
/// its own format, an encoded image decodes back at the same size.
public struct CoderContract: Sendable {
    /// The coder under test.
    public var coder: any ImageCoder
    /// Valid files the coder must decode, each at least a few dozen bytes.
    public var samples: [Data]
    /// The thumbnail size asked for in the thumbnail check.
    public var thumbnailSize = PixelSize(width: 16, height: 16)
    /// Corrupted copies made of each sample, with different seeds.
    public var corruptedCopies = 32
    /// The first bytes kept intact in corrupted copies (the signature), so the coder still recognises them.
    public var intactPrefix = 8

    /// Checks of `coder` on `samples`.
    public init(coder: any ImageCoder, samples: [Data]) {
        self.coder = coder
        self.samples = samples
    }

    /// Every violation found; empty when the coder keeps its contract.
    public func violations() -> [ContractViolation] {
        var found: [ContractViolation] = []
        if samples.isEmpty { found.append(ContractViolation(duty: "samples", detail: "no sample files given")) }
        for (index, sample) in samples.enumerated() {
            let name = "sample \(index)"
            guard coder.canDecode(sample) else {
                found.append(ContractViolation(duty: "canDecode", detail: "\(name) is not recognised"))
                continue
            }
            let image: Image
            do {
                image = try coder.decode(sample, options: DecodeOptions())
            } catch {
                found.append(ContractViolation(duty: "decode", detail: "\(name) failed: \(error)"))
                continue
            }
            found += checkCorruptedInput(sample, name: name)
            found += checkPixelLimit(sample, image: image, name: name)
            found += checkThumbnail(sample, image: image, name: name)
            found += checkRoundTrip(image, name: name)
        }
        return found
    }

    /// Truncated and byte-flipped copies: decoding them must return (an image) or throw, nothing else.
    /// Typed throws make every error an `ImageError`; what this check adds is that the coder runs them.
    private func checkCorruptedInput(_ sample: Data, name: String) -> [ContractViolation] {
        let bytes = [UInt8](sample)
        var copies: [[UInt8]] = [[], Array(bytes.prefix(1)), Array(bytes.prefix(intactPrefix))]
        for fraction in [0.25, 0.5, 0.9] { copies.append(Array(bytes.prefix(Int(Double(bytes.count) * fraction)))) }
        copies.append(Array(bytes.dropLast()))
        var flipper = ByteFlipper(seed: UInt64(bytes.count))
        for round in 0..<corruptedCopies {
            copies.append(flipper.flipping(bytes, count: 1 + round % 8, keepingFirst: intactPrefix))
        }
        var found: [ContractViolation] = []
        for copy in copies {
            do {
                let image = try coder.decode(Data(copy), options: DecodeOptions())
                if image.width <= 0 || image.height <= 0 {
                    found.append(
                        ContractViolation(
                            duty: "corrupted input",
                            detail: "\(name): an empty image instead of an error"))
                }
            } catch {
                continue
            }
        }
        if (try? coder.decode(Data(), options: DecodeOptions())) != nil {
            found.append(ContractViolation(duty: "corrupted input", detail: "empty data decoded to an image"))
        }
        return found
    }

    /// A pixel limit below the image's size must be refused.
    private func checkPixelLimit(_ sample: Data, image: Image, name: String) -> [ContractViolation] {
        var options = DecodeOptions()
        options.maxPixelCount = max(1, image.width * image.height / 4)
        do {
            let decoded = try coder.decode(sample, options: options)
            return [
                ContractViolation(
                    duty: "pixel limit",
                    detail:
                        "\(name): \(decoded.width)x\(decoded.height) decoded under a limit of \(options.maxPixelCount) pixels"
                )
            ]
        } catch {
            switch error {
            case .imageTooLarge, .decodeBudgetExceeded: return []
            default:
                return [
                    ContractViolation(
                        duty: "pixel limit",
                        detail: "\(name): refused with \(error), not .imageTooLarge")
                ]
            }
        }
    }

    /// A thumbnail size must be honoured: the image fits inside it.
    private func checkThumbnail(_ sample: Data, image: Image, name: String) -> [ContractViolation] {
        guard image.width > thumbnailSize.width || image.height > thumbnailSize.height else { return [] }
        var options = DecodeOptions()
        options.thumbnailPixelSize = thumbnailSize
        do {
            let thumbnail = try coder.decode(sample, options: options)
            if thumbnail.width > thumbnailSize.width || thumbnail.height > thumbnailSize.height {
                return [
                    ContractViolation(
                        duty: "thumbnail size",
                        detail: "\(name): \(thumbnail.width)x\(thumbnail.height) for a \(thumbnailSize) thumbnail")
                ]
            }
            return []
        } catch {
            return [ContractViolation(duty: "thumbnail size", detail: "\(name): thumbnail decode failed: \(error)")]
        }
    }

    /// A coder that encodes the sample's format must decode what it encoded, at the same size.
    private func checkRoundTrip(_ image: Image, name: String) -> [ContractViolation] {
        let format = image.format
        guard format != .undefined, coder.canEncode(to: format) else { return [] }
        do {
            let data = try coder.encode(image.firstFrameOnly, as: format, options: EncodeOptions())
            let back = try coder.decode(data, options: DecodeOptions())
            if back.width != image.width || back.height != image.height {
                return [
                    ContractViolation(
                        duty: "round trip",
                        detail: "\(name): \(image.width)x\(image.height) came back \(back.width)x\(back.height)")
                ]
            }
            return []
        } catch {
            return [ContractViolation(duty: "round trip", detail: "\(name): \(error)")]
        }
    }
}
