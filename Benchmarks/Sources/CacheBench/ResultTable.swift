/// The benchmark's output: one Markdown table, ours next to the baseline measured in the same run.
struct ResultTable {
    struct Row {
        var name: String
        var ours: String
        var baseline: String
        var ratio: String
        var goal: String
    }

    private var rows: [Row] = []

    /// A row where smaller is better (times); the ratio is ours / baseline.
    mutating func time(
        _ name: String, ours: Double, baseline: Double?, baselineName: String = "", goal: String = "",
        unit: String
    ) {
        rows.append(
            Row(
                name: name, ours: format(ours) + " " + unit,
                baseline: baseline.map { "\(format($0)) \(unit) (\(baselineName))" } ?? "—",
                ratio: baseline.map { format(ours / $0) } ?? "—", goal: goal))
    }

    /// A row where bigger is better (throughput); the ratio is ours / baseline.
    mutating func throughput(_ name: String, ours: Double, baseline: Double, baselineName: String, goal: String) {
        rows.append(
            Row(
                name: name, ours: format(ours / 1e6) + " M/s",
                baseline: "\(format(baseline / 1e6)) M/s (\(baselineName))",
                ratio: format(ours / baseline) + "x", goal: goal))
    }

    /// A row where bigger is better, in thousands per second; the ratio is ours / baseline.
    mutating func rate(_ name: String, ours: Double, baseline: Double, baselineName: String, goal: String) {
        rows.append(
            Row(
                name: name, ours: format(ours / 1e3) + " k/s",
                baseline: "\(format(baseline / 1e3)) k/s (\(baselineName))",
                ratio: format(ours / baseline) + "x", goal: goal))
    }

    func render() -> String {
        var lines = ["| benchmark | SwiftWebImage | baseline (same run) | ratio | goal |", "|---|---|---|---|---|"]
        for row in rows {
            lines.append("| \(row.name) | \(row.ours) | \(row.baseline) | \(row.ratio) | \(row.goal) |")
        }
        return lines.joined(separator: "\n")
    }

    private func format(_ value: Double) -> String {
        let digits = value >= 100 ? 0 : (value >= 10 ? 1 : 2)
        var text = String(Int((value * pow10(digits)).rounded()))
        if digits > 0 {
            while text.count <= digits { text = "0" + text }
            text.insert(".", at: text.index(text.endIndex, offsetBy: -digits))
        }
        return text
    }

    private func pow10(_ n: Int) -> Double { n == 0 ? 1 : (n == 1 ? 10 : 100) }
}
