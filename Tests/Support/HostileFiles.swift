/// Generators of hostile image files (small files that cost a decoder a lot of work or memory), one
/// extension per format in `Hostile<Format>Files.swift`. Used by the coders' tests and by scripts that
/// measure time and peak memory.
public enum HostileFiles {}
