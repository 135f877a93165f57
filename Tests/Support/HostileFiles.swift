/// Generators of hostile image files, written byte by byte in code: small files that make a decoder do
/// huge amounts of work, hold huge amounts of memory, or meet damage. One extension per format
/// (`Hostile<Format>Files.swift`); tests and the time/peak-memory script use them.
public enum HostileFiles {}
