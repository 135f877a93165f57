/// The memory libwebp allocates for the Huffman tables of a lossless bitstream (a VP8L chunk, or an
/// ALPH chunk's losslessly compressed alpha), known before libwebp sees the data, and the bound we hold
/// it to.
///
/// A lossless image names its Huffman code groups in an "entropy image" of up to 65,536 groups, and
/// libwebp 1.2.4 (`ReadHuffmanCodes` in its `vp8l_dec.c`) allocates the tables of every group at once,
/// from the largest group index plus one, before reading a single code: a 352 KB file of 1 MP naming
/// 65,536 groups makes it reserve about 800 MB. These tables are not pixels, so the pixel limit does not
/// see them. We read the bitstream up to the entropy image (its transforms and sub-images are small) and
/// refuse with `.decodeBudgetExceeded(.decoderMemory, ...)` when the tables would take more than
/// ``bound(width:height:)``.
enum VP8LHuffmanMemory {
    /// Table entries libwebp reserves per group, by colour cache bits 0...11 (`kTableSize` in libwebp's
    /// `vp8l_dec.c`): 630 for each of red, blue and alpha and 410 for distances (the worst cases of
    /// 8-bit first-level tables, from zlib's `enough`), plus the green alphabet's, which grows with the cache.
    static let tableEntriesPerGroup = [654, 656, 658, 662, 670, 686, 718, 782, 912, 1168, 1680, 2704]
        .map { 630 * 3 + 410 + $0 }
    /// Bytes of one table entry (libwebp's `HuffmanCode`: an 8-bit length and a 16-bit value).
    static let bytesPerEntry = 4
    /// Bytes of one group's record (libwebp's `HTreeGroup`: five table pointers, four ints and a packed
    /// table of 64 eight-byte entries).
    static let bytesPerGroupRecord = 5 * 8 + 4 * 4 + 64 * 8
    /// Group indexes are 16 bits (the entropy image's red and green bytes).
    static let maxGroupCount = 1 << 16
    /// The smallest entropy-image block is 4x4 pixels (precision bits 2).
    static let minPrecisionBits = 2

    /// The least memory ``bound(width:height:)`` allows: 64 MB, more than the tables of the most
    /// groups libwebp's own encoder writes (it keeps the entropy image under 2,600 pixels, so at most
    /// 2,600 groups, about 54 MB with the largest colour cache).
    static let minimumBound = 64 << 20
    /// Bytes of table memory allowed for each pixel of the image: 4, what the pixel itself takes as RGBA.
    static let boundBytesPerPixel = 4

    /// Table memory allowed for a `width` x `height` image: as many bytes as its pixels take as RGBA
    /// (an amount the pixel limit already admits), and never less than ``minimumBound``.
    static func bound(width: Int, height: Int) -> Int {
        max(minimumBound, boundBytesPerPixel * width * height)
    }

    /// Bytes libwebp allocates for `groups` groups with a colour cache of `colorCacheBits`.
    static func tableBytes(groups: Int, colorCacheBits: Int) -> Int {
        groups * (tableEntriesPerGroup[colorCacheBits] * bytesPerEntry + bytesPerGroupRecord)
    }

    /// The most table memory any `width` x `height` bitstream could need: every 4x4 block its own group,
    /// with the largest colour cache. When this fits the bound, the bitstream need not be read.
    static func worstCase(width: Int, height: Int) -> Int {
        let blocks =
            VP8LBitstream.subsampled(width, bits: minPrecisionBits)
            * VP8LBitstream.subsampled(height, bits: minPrecisionBits)
        return tableBytes(groups: min(maxGroupCount, blocks), colorCacheBits: VP8LBitstream.maxColorCacheBits)
    }

    /// The table memory of the image stream in `stream` (after the VP8L chunk's 5-byte header, or after
    /// an ALPH chunk's first byte), `width` x `height` pixels: reads its transforms, colour cache size
    /// and entropy image, as libwebp does before it allocates.
    static func estimate(stream: UnsafeRawBufferPointer, width: Int, height: Int) throws(VP8LBitstream.ReadError) -> Int
    {
        var reader = VP8LBitstream.BitReader(stream)
        var codedWidth = width
        var seenTransforms: Set<Int> = []
        while try reader.read(1) == 1 {
            let type = try reader.read(2)
            // Each transform may appear once (libwebp rejects a repeated one).
            guard seenTransforms.insert(type).inserted else { throw .malformed }
            switch type {
            case predictorTransform, crossColorTransform:
                let bits = try reader.read(3) + 2
                _ = try VP8LBitstream.readSubImage(
                    width: VP8LBitstream.subsampled(codedWidth, bits: bits),
                    height: VP8LBitstream.subsampled(height, bits: bits), &reader)
            case colorIndexingTransform:
                let colors = try reader.read(8) + 1
                _ = try VP8LBitstream.readSubImage(width: colors, height: 1, &reader)
                // Small palettes pack 2, 4 or 8 pixels per coded pixel.
                let packing = colors > 16 ? 0 : colors > 4 ? 1 : colors > 2 ? 2 : 3
                codedWidth = VP8LBitstream.subsampled(codedWidth, bits: packing)
            default:
                break  // subtract green: no data
            }
        }
        let cacheBits = try VP8LBitstream.readColorCacheBits(&reader)
        var groups = 1
        if try reader.read(1) == 1 {
            let precision = try reader.read(3) + minPrecisionBits
            let entropy = try VP8LBitstream.readSubImage(
                width: VP8LBitstream.subsampled(codedWidth, bits: precision),
                height: VP8LBitstream.subsampled(height, bits: precision),
                &reader)
            for pixel in entropy { groups = max(groups, Int((pixel >> 8) & 0xffff) + 1) }
        }
        return tableBytes(groups: groups, colorCacheBits: cacheBits)
    }

    /// Transform types (2 bits).
    private static let predictorTransform = 0, crossColorTransform = 1, colorIndexingTransform = 3
}
