/// Generators of files made to cost a decoder as much as possible (or to take an unusual path) while
/// staying small, one extension per format (`Hostile<Format>Files.swift`). Tests use them to check that
/// every decode ends in a typed error or a bounded result; measurement scripts use them for time and
/// peak memory.
public enum HostileFiles {}
