import Foundation
import Synchronization
import WebImageCore
import WebImageTestSupport

/// A two-level cache double: a memory dictionary of images and a "disk" dictionary of bytes decoded
/// on query with the context's decode options, logging every store.
final class TestCache: ImageCache {
    struct Store: Sendable {
        let key: String
        let cacheType: ImageCacheType
        let hadImage: Bool
        let data: Data?
    }

    private struct State {
        var memory: [String: Image] = [:]
        var disk: [String: (Data, CacheValidators?)] = [:]
        var stores: [Store] = []
        var events: [String] = []
    }

    /// Guards both levels and the logs.
    private let state = Locked(State())
    let coder: any ImageCoder
    /// When set, a store into the disk level alone (what the manager leaves running after its answer)
    /// waits for this gate before it records anything.
    let diskOnlyStoreGate: AsyncGate?

    init(coder: any ImageCoder = RawImageCoder(), diskOnlyStoresWaitFor gate: AsyncGate? = nil) {
        self.coder = coder
        diskOnlyStoreGate = gate
    }

    var stores: [Store] { state.withLock { $0.stores } }
    var events: [String] { state.withLock { $0.events } }
    func log(_ event: String) { state.withLock { $0.events.append(event) } }
    func memoryKeys() -> Set<String> { state.withLock { Set($0.memory.keys) } }
    func diskKeys() -> Set<String> { state.withLock { Set($0.disk.keys) } }
    func putDisk(_ data: Data, key: String, validators: CacheValidators? = nil) {
        state.withLock { $0.disk[key] = (data, validators) }
    }

    func queryImage(
        forKey key: String, options: ImageOptions, context: ImageContext,
        cacheType: ImageCacheType
    ) async -> CacheQueryResult? {
        if cacheType.includesMemory, let image = state.withLock({ $0.memory[key] }) {
            return CacheQueryResult(image: image, cacheType: .memory, validators: state.withLock { $0.disk[key]?.1 })
        }
        guard cacheType.includesDisk, let (data, validators) = state.withLock({ $0.disk[key] }) else { return nil }
        guard let image = try? coder.decode(data, options: context.decodeOptions(for: options)) else { return nil }
        return CacheQueryResult(image: image, data: data, cacheType: .disk, validators: validators)
    }

    func store(
        _ image: Image?, data: Data?, validators: CacheValidators?, forKey key: String,
        cacheType: ImageCacheType, context: ImageContext
    ) async throws(ImageError) {
        // Let other work run first, so an un-awaited store really finishes after the answer.
        for _ in 0..<5 { await Task.yield() }
        if cacheType == .disk, let diskOnlyStoreGate { await diskOnlyStoreGate.wait() }
        state.withLock { state in
            state.stores.append(Store(key: key, cacheType: cacheType, hadImage: image != nil, data: data))
            if cacheType.includesMemory, let image { state.memory[key] = image }
            if cacheType.includesDisk {
                let bytes = data ?? image.map { RawImageCoder.encode($0.pixels) }
                if let bytes { state.disk[key] = (bytes, validators) }
            }
            state.events.append("stored \(key)")
        }
    }

    func removeImage(forKey key: String, cacheType: ImageCacheType) async {
        state.withLock { state in
            if cacheType.includesMemory { state.memory[key] = nil }
            if cacheType.includesDisk { state.disk[key] = nil }
        }
    }

    func containsImage(forKey key: String, cacheType: ImageCacheType) async -> ImageCacheType {
        state.withLock { state in
            if cacheType.includesMemory, state.memory[key] != nil { return .memory }
            if cacheType.includesDisk, state.disk[key] != nil { return .disk }
            return .none
        }
    }

    func clear(cacheType: ImageCacheType) async {
        state.withLock { state in
            if cacheType.includesMemory { state.memory.removeAll() }
            if cacheType.includesDisk { state.disk.removeAll() }
        }
    }

    func imageFromMemory(forKey key: String) -> Image? { state.withLock { $0.memory[key] } }
}
