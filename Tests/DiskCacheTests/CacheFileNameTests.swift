import Foundation
import Testing

@testable import WebImageDiskCache

@Suite("Cache file names")
struct CacheFileNameTests {
    @Test func nameIsTheHexSHA256OfTheKey() {
        // FIPS 180-2 test vector for "abc".
        #expect(CacheFileName.forKey("abc") == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
    }

    @Test func nameKeepsAShortAlphanumericExtensionOfTheURLPath() {
        #expect(CacheFileName.forKey("https://example.com/a/b.png?v=1").hasSuffix(".png"))
        #expect(CacheFileName.forKey("https://example.com/b.JPEG#top").hasSuffix(".JPEG"))
        #expect(CacheFileName.forKey("archive.tar.gz").hasSuffix(".gz"))
    }

    @Test(arguments: [
        "https://example.com/image", "a.waytoolongextension", "a.p-g", "a.png/", "a.", "a.p%2Fg",
        "https://example.com/x?file=a.png",
    ])
    func nameDropsExtensionsThatAreMissingLongOrNotAlphanumeric(key: String) {
        let name = CacheFileName.forKey(key)
        #expect(name.count == CacheFileName.digestLength)
        #expect(CacheFileName.isDataFile(name))
    }

    @Test func sidecarAndTemporaryNamesAreNeverDataFileNames() {
        let name = CacheFileName.forKey("https://example.com/a.png")
        #expect(CacheFileName.isDataFile(name))
        #expect(!CacheFileName.isDataFile(CacheFileName.sidecar(for: name)))
        #expect(CacheFileName.dataFile(forSidecar: CacheFileName.sidecar(for: name)) == name)
        #expect(!CacheFileName.isDataFile(CacheFileName.temporaryPrefix + name))
    }
}
