import Foundation
import WebImageCore

/// Transforms already made, so a profile met again (every photo from the same phone carries the same
/// bytes) is parsed once. Keyed by the profile's bytes (hashed by the dictionary, compared in full on a
/// hit), the pixel format and the converter's settings; holds the newest ``capacity`` and also remembers
/// profiles that could not be used and those equivalent to sRGB.
final class ColorTransformCache: Sendable {
    /// Transforms kept: 16. A server sees a handful of distinct profiles (sRGB variants, Display P3, Adobe RGB,
    /// a few CMYK); a matrix-shaper transform costs a few KB and a CMYK one (a precomputed CLUT) a few
    /// hundred, so 16 bound the cache to a few MB.
    static let capacity = 16

    static let shared = ColorTransformCache()

    struct Key: Hashable, Sendable {
        let profile: Data
        let format: ColorPixelFormat
        let intent: RenderingIntent
        let blackPointCompensation: Bool
    }

    enum Entry: Sendable {
        case transform(ColorTransform)
        /// The profile maps to sRGB within one level: nothing to do.
        case identity
        case unusable(ImageError)
    }

    private struct State {
        var entries: [Key: Entry] = [:]
        /// Keys from least to most recently used; short (``capacity``), so linear updates are cheap.
        var order: [Key] = []
    }

    /// Guards the entries and their use order.
    private let state = Locked(State())

    /// The entry for `key`, made (outside the lock) when missing. Two threads missing the same key at once
    /// both make it; the later one's result is kept, and both are correct.
    func entry(for key: Key) -> Entry {
        if let hit = lookUp(key) { return hit }
        let entry: Entry
        do {
            let transform = try ColorTransform.make(
                profile: key.profile, format: key.format, intent: key.intent,
                blackPointCompensation: key.blackPointCompensation)
            entry = transform.isNearIdentity() ? .identity : .transform(transform)
        } catch {
            entry = .unusable(error)
        }
        state.withLock { state in
            if state.entries.updateValue(entry, forKey: key) == nil {
                state.order.append(key)
                if state.order.count > Self.capacity { state.entries[state.order.removeFirst()] = nil }
            }
        }
        return entry
    }

    private func lookUp(_ key: Key) -> Entry? {
        state.withLock { state in
            guard let entry = state.entries[key] else { return nil }
            if let index = state.order.firstIndex(of: key) {
                state.order.remove(at: index)
                state.order.append(key)
            }
            return entry
        }
    }

    /// Entries held now (for tests).
    var count: Int { state.withLock { $0.entries.count } }

    /// Forgets every entry (for tests).
    func removeAll() { state.withLock { $0 = State() } }
}
