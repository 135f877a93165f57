"""The checksum the reference scripts record and the Swift tests recompute (Tests/Support/PixelHash.swift):
FNV-1a 64 over RGBA8 bytes, rows top to bottom, no padding."""
import numpy as np

FNV_OFFSET = 0xCBF29CE484222325
FNV_PRIME = 0x100000001B3
MASK = (1 << 64) - 1


def fnv1a64(data: bytes) -> int:
    """FNV-1a 64 of `data` (bytes, or anything with tobytes())."""
    if hasattr(data, "tobytes"):
        data = data.tobytes()
    h = FNV_OFFSET
    for b in data:
        h = ((h ^ b) * FNV_PRIME) & MASK
    return h


def fnv1a64_many(frames: np.ndarray) -> list:
    """FNV-1a 64 of each row of a (frames, bytes) uint8 array, one column at a time (numpy wraps uint64)."""
    h = np.full(frames.shape[0], FNV_OFFSET, dtype=np.uint64)
    prime = np.uint64(FNV_PRIME)
    with np.errstate(over="ignore"):
        for column in range(frames.shape[1]):
            h = (h ^ frames[:, column].astype(np.uint64)) * prime
    return [int(v) for v in h]
