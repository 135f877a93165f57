import CRedis
import Foundation
import Testing

@testable import WebImageRedisCache

/// The stored value's layout and its checksums, without a server.
@Suite struct RedisValueEnvelopeTests {
    static func crc32c(_ bytes: [UInt8], portable: Bool = false) -> UInt32 {
        bytes.withUnsafeBufferPointer { buffer in
            portable
                ? credis_crc32c_portable(0, buffer.baseAddress, buffer.count)
                : credis_crc32c(0, buffer.baseAddress, buffer.count)
        }
    }

    @Test func crc32cMatchesTheStandardCheckValues() {
        // RFC 3720 (iSCSI), appendix B.4, and the usual "123456789" check value.
        #expect(Self.crc32c(Array("123456789".utf8)) == 0xE306_9283)
        #expect(Self.crc32c([UInt8](repeating: 0, count: 32)) == 0x8A91_36AA)
        #expect(Self.crc32c([UInt8](repeating: 0xFF, count: 32)) == 0x62A8_AB43)
        #expect(Self.crc32c((0..<32).map { UInt8($0) }) == 0x46DD_794E)
    }

    @Test func theInstructionAndTheTableAgreeAtEveryLengthAndSplit() {
        var state: UInt32 = 7
        let bytes: [UInt8] = (0..<20_016).map { _ in
            state = state &* 1_103_515_245 &+ 12_345
            return UInt8(truncatingIfNeeded: state >> 16)
        }
        // Lengths around the instruction path's three-stream rounds (768 bytes each) and a 20 KB value.
        for length in [0, 1, 7, 8, 9, 15, 16, 17, 63, 64, 65, 767, 768, 769, 999, 1000, 1536, 2311, 20_000, 20_016] {
            let slice = Array(bytes.prefix(length))
            #expect(Self.crc32c(slice) == Self.crc32c(slice, portable: true), "length \(length)")
        }
        // Continuing from an earlier result gives the checksum of the whole.
        let whole = Self.crc32c(bytes)
        let split = bytes.withUnsafeBufferPointer { buffer in
            credis_crc32c(credis_crc32c(0, buffer.baseAddress, 1333), buffer.baseAddress! + 1333, buffer.count - 1333)
        }
        #expect(split == whole)
    }

    @Test func roundTripWritesTheCRC32CLayout() throws {
        let image = Data((0..<20_000).map { UInt8(truncatingIfNeeded: $0 &* 31) })
        let value = try #require(RedisValueEnvelope.encode(image, extendedData: Data("{\"etag\":\"1\"}".utf8)))
        #expect(Array(value.prefix(4)) == Array("WIR2".utf8))
        let decoded = try #require(RedisValueEnvelope.decode(value))
        #expect(decoded.data == image && decoded.extendedData == Data("{\"etag\":\"1\"}".utf8))
    }

    @Test func valuesOfTheFirstLayoutAreStillRead() throws {
        let image = Data((0..<5_000).map { UInt8(truncatingIfNeeded: $0 &* 7) })
        // WIR1: the same header with zlib's CRC-32 of the image bytes (no extended data).
        let crc = image.withUnsafeBytes { credis_crc32(0, $0.bindMemory(to: UInt8.self).baseAddress, $0.count) }
        var value = Data("WIR1".utf8)
        for field in [UInt32(image.count), 0, crc] {
            withUnsafeBytes(of: field.bigEndian) { value.append(contentsOf: $0) }
        }
        value.append(image)
        let decoded = try #require(RedisValueEnvelope.decode(value))
        #expect(decoded.data == image && decoded.extendedData == nil)
        // The same bytes under the new magic fail the CRC-32C check: the magic picks the checksum.
        var relabelled = value
        relabelled.replaceSubrange(relabelled.startIndex..<relabelled.startIndex + 4, with: Data("WIR2".utf8))
        #expect(RedisValueEnvelope.decode(relabelled) == nil)
    }
}
