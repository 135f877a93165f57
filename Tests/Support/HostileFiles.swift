/// Generators of hostile and damaged image files, made in code: one extension per format
/// (`Hostile<Format>Files.swift`). Each returns the bytes of one file and says in its doc comment what
/// the file is and what a decoder should do with it.
public enum HostileFiles {}
