import Foundation

/// One measured scenario at one size: Keepsake's figure, the baseline's, and their ratio.
struct BenchmarkResult: Sendable {
  var scenario: String
  var size: Int
  /// Seconds, or bytes for memory.
  var keepsake: Double
  var baseline: Double
  var target: Double
  /// For coalescing: the number of writes and whether the final value reached the disk.
  var writes: Int?
  var finalValueOnDisk: Bool?
  /// A remark for the table.
  var note: String?

  var ratio: Double { baseline > 0 ? keepsake / baseline : .infinity }

  var meetsTarget: Bool {
    if let writes, let finalValueOnDisk { return writes <= Int(target) && finalValueOnDisk }
    if note == "FILE I/O ON CALLER" { return false }
    return ratio <= target
  }

  var json: [String: Any] {
    if let writes, let finalValueOnDisk {
      return [
        "scenario": scenario, "size": size, "writes": writes,
        "final-value-on-disk": finalValueOnDisk,
      ]
    }
    return [
      "scenario": scenario, "size": size, "keepsake": keepsake, "baseline": baseline,
      "ratio": ratio,
    ]
  }

  var tableRow: String {
    func pad(_ text: String, _ width: Int) -> String {
      text.count >= width ? text : text + String(repeating: " ", count: width - text.count)
    }
    let verdict = meetsTarget ? "ok" : "MISSED"
    if let writes, let finalValueOnDisk {
      return pad(scenario, 20) + pad(String(size), 9)
        + pad("\(writes) writes", 16)
        + pad(finalValueOnDisk ? "final on disk" : "FINAL MISSING", 16)
        + pad("", 9) + pad("≤ \(Int(target)) writes", 13) + verdict
    }
    let isBytes = scenario == "peak-memory"
    func format(_ value: Double) -> String {
      if isBytes { return String(format: "%.1f MB", value / 1_000_000) }
      if value < 1e-6 { return String(format: "%.1f ns", value * 1e9) }
      if value < 1e-3 { return String(format: "%.2f µs", value * 1e6) }
      return String(format: "%.2f ms", value * 1e3)
    }
    return pad(scenario, 20) + pad(String(size), 9) + pad(format(keepsake), 16)
      + pad(format(baseline), 16) + pad(String(format: "%.2f", ratio), 9)
      + pad(String(format: "≤ %.2f", target), 13) + verdict
      + (note.map { "  (\($0))" } ?? "")
  }

  static let tableHeader =
    "scenario            size     keepsake        baseline        ratio    target       "
}
