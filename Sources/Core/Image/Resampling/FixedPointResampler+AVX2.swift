import CResamplingKernels

// The fixed-point engine's passes on the AVX2 kernels (the `CResamplingKernels` target), for CPUs that
// have them: the same integer sums as the Swift kernels in FixedPointResampler+Kernels.swift, so the
// same bytes. The RGBA unpremultiply and its low-alpha check are C too (`wi_unpremultiply_rgba`, the
// Swift `writePixel`'s Float operations in its order); the Float recomputation of the unsure pixels
// stays in Swift.

extension FixedPointResampler {
    /// An RGB source row straight into `pairedRow`, as widening and pairing it would fill it.
    mutating func pairRGBRowWithAVX2(_ row: UnsafeBufferPointer<UInt8>) {
        let pairs = pairRange, oddStart = (pairRange.upperBound + 2) * 8, span = columns.sourceSpan
        pairedRow.withUnsafeMutableBufferPointer { paired in
            let even = paired.baseAddress!, odd = paired.baseAddress! + oddStart
            wi_pair_rgb_avx2(
                row.baseAddress!, span.lowerBound, span.upperBound, even, odd, pairs.lowerBound, pairs.upperBound)
        }
    }

    /// The widened row (or, with `alreadyPaired`, the row already in `pairedRow`) filtered horizontally
    /// into the ring row at `slot`.
    mutating func filterWidenedRowWithAVX2(into slot: Int, alreadyPaired: Bool = false) {
        let horizontal = self.horizontal, width = self.width, layout = self.layout
        let shift = intermediateShift, offset = intermediateOffset
        if layout == .gray8 {
            widened.withUnsafeBufferPointer { src in
                ring.withUnsafeMutableBufferPointer { ring in
                    horizontal.coefficients.withUnsafeBufferPointer { c in
                        horizontal.first.withUnsafeBufferPointer { first in
                            wi_horizontal_gray_avx2(
                                src.baseAddress!, c.baseAddress!, first.baseAddress!, horizontal.taps, width, shift,
                                offset, ring.baseAddress! + slot)
                        }
                    }
                }
            }
            return
        }
        let pairs = pairRange, oddStart = (pairRange.upperBound + 2) * 8
        if !alreadyPaired {
            widened.withUnsafeBufferPointer { src in
                pairedRow.withUnsafeMutableBufferPointer { paired in
                    let even = paired.baseAddress!, odd = paired.baseAddress! + oddStart
                    wi_pair_pixels_avx2(src.baseAddress!, even, odd, pairs.lowerBound, pairs.upperBound)
                }
            }
        }
        pairedRow.withUnsafeBufferPointer { paired in
            ring.withUnsafeMutableBufferPointer { ring in
                horizontal.pairs.withUnsafeBufferPointer { coefficients in
                    horizontal.first.withUnsafeBufferPointer { first in
                        let even = paired.baseAddress!, odd = paired.baseAddress! + oddStart
                        let out = ring.baseAddress! + slot
                        let c = coefficients.baseAddress!, first = first.baseAddress!
                        if layout == .rgb8 {
                            wi_horizontal_rgb_avx2(even, odd, c, first, horizontal.taps, width, shift, offset, out)
                        } else {
                            // As horizontalRGBA: to (v − 128) × 128 from 255 v − 32512, in Float.
                            let scale = 128 / (255 * Float(1 << horizontal.bits))
                            let centre: Float = -128 * 128 / 255
                            wi_horizontal_rgba_avx2(even, odd, c, first, horizontal.taps, width, scale, centre, out)
                        }
                    }
                }
            }
        }
    }

    /// Output row `j` filtered vertically from the ring into its bytes; for RGBA, returns the pixels left
    /// for the Float recomputation (as ``verticalToRGBA(_:slots:coefficients:pixels:bits:errorBound:into:)``).
    /// The row's coefficients are read where they are, and its ring offsets go to ``slotScratch``.
    mutating func emitWithAVX2(row j: Int) -> [Int] {
        let count = rows.count[j], firstRow = rows.first[j], ringRows = self.ringRows, ringStride = self.ringStride
        for k in 0..<count { slotScratch[k] = ((firstRow + k) % ringRows) * ringStride }
        let values = width * channels, bits = Int32(vertical.bits), base = j * width * channels
        let firstCoefficient = j * vertical.taps
        if layout != .rgba8 {
            ring.withUnsafeBufferPointer { ring in
                vertical.coefficients.withUnsafeBufferPointer { coefficients in
                    slotScratch.withUnsafeBufferPointer { slots in
                        output.withUnsafeMutableBufferPointer { out in
                            wi_vertical_bytes_avx2(
                                ring.baseAddress!, slots.baseAddress!, coefficients.baseAddress! + firstCoefficient,
                                count, values, bits, out.baseAddress! + base)
                        }
                    }
                }
            }
            return []
        }
        ring.withUnsafeBufferPointer { ring in
            vertical.coefficients.withUnsafeBufferPointer { coefficients in
                slotScratch.withUnsafeBufferPointer { slots in
                    verticalSums.withUnsafeMutableBufferPointer { sums in
                        wi_vertical_sums_avx2(
                            ring.baseAddress!, slots.baseAddress!, coefficients.baseAddress! + firstCoefficient, count,
                            values, sums.baseAddress!)
                    }
                }
            }
        }
        let toLevels = 1 / Float(1 << (bits + 7)), errorBound = self.errorBound, pixels = width
        let unsureCount = verticalSums.withUnsafeBufferPointer { sums in
            output.withUnsafeMutableBufferPointer { out in
                unsureScratch.withUnsafeMutableBufferPointer { unsure in
                    wi_unpremultiply_rgba(
                        sums.baseAddress!, pixels, toLevels, errorBound, 1, out.baseAddress! + base, unsure.baseAddress!
                    )
                }
            }
        }
        return unsureCount == 0 ? [] : unsureScratch[0..<unsureCount].map { Int($0) }
    }
}
