import Foundation

/// One figure of one scenario at one size: Keepsake's, the baseline's (when there is one), and
/// the target it is held to.
struct BenchmarkResult: Sendable {
  /// What the figures count.
  enum Unit: Sendable, Equatable {
    case seconds
    case bytes
    /// A count of something, named in the table (`"fsyncs"`, `"writes"`, `"keys"`).
    case count(String)
  }

  /// What the row must show to meet its target.
  enum Target: Sendable, Equatable {
    /// The ratio of the medians is at most this.
    case ratioAtMost(Double)
    /// Keepsake's figure equals the baseline's, exactly (an fsync count).
    case equalToBaseline
    /// Keepsake's figure (there is no baseline) is at most this.
    case valueAtMost(Double)
    /// Keepsake's figure (there is no baseline) is at least this.
    case valueAtLeast(Double)
    /// Reported only: fsync-bound wall-clock time, a cost with no floor.
    case report
  }

  var scenario: String
  var size: Int
  var unit: Unit = .seconds
  /// Keepsake's figures over the repetitions.
  var keepsake: Spread
  /// The baseline's figures over the same, alternating, repetitions.
  var baseline: Spread?
  /// The ratio of each repetition's pair of figures, when there are several.
  var ratios: Spread?
  var target: Target
  /// A check of the scenario that failed (a wrong value read, a key that missed a change): the
  /// row misses its target whatever its figures.
  var failure: String?
  /// A remark for the table.
  var note: String?
  /// Whether the figures are per item (per key) rather than for all `size` items.
  var perItem = false

  /// Keepsake's median over the baseline's, or `nil` without a baseline.
  var ratio: Double? {
    guard let baseline else { return nil }
    return baseline.median > 0 ? keepsake.median / baseline.median : .infinity
  }

  var meetsTarget: Bool {
    if failure != nil { return false }
    switch target {
    case .ratioAtMost(let limit): return (ratio ?? .infinity) <= limit
    case .equalToBaseline: return baseline.map { $0 == keepsake } ?? false
    case .valueAtMost(let limit): return keepsake.max <= limit
    case .valueAtLeast(let limit): return keepsake.min >= limit
    case .report: return true
    }
  }

  /// Paired samples of Keepsake and the baseline, as a row with spreads.
  init(
    _ scenario: String, size: Int, unit: Unit = .seconds, keepsake: [Double],
    baseline: [Double], target: Target, note: String? = nil
  ) {
    self.scenario = scenario
    self.size = size
    self.unit = unit
    self.keepsake = Spread(keepsake)
    self.baseline = Spread(baseline)
    if keepsake.count > 1, keepsake.count == baseline.count {
      self.ratios = Spread(zip(keepsake, baseline).map { $1 > 0 ? $0 / $1 : .infinity })
    }
    self.target = target
    self.note = note
  }

  /// A figure of Keepsake's alone.
  init(_ scenario: String, size: Int, unit: Unit, value: Double, target: Target) {
    self.scenario = scenario
    self.size = size
    self.unit = unit
    self.keepsake = Spread(exactly: value)
    self.target = target
  }

  // MARK: - Output

  var json: [String: Any] {
    func spread(_ spread: Spread) -> [String: Double] {
      ["median": spread.median, "min": spread.min, "max": spread.max]
    }
    var object: [String: Any] = [
      "scenario": scenario, "size": size, "unit": unitName, "keepsake": spread(keepsake),
      "target": targetText, "met": meetsTarget,
    ]
    if let baseline { object["baseline"] = spread(baseline) }
    if let ratio { object["ratio"] = ratio }
    if let ratios { object["ratio-spread"] = spread(ratios) }
    if let failure { object["failure"] = failure }
    if let note { object["note"] = note }
    return object
  }

  private var unitName: String {
    switch unit {
    case .seconds: return "seconds"
    case .bytes: return "bytes"
    case .count(let name): return name
    }
  }

  var targetText: String {
    switch target {
    case .ratioAtMost(let limit): return String(format: "≤ %.2f", limit)
    case .equalToBaseline: return "= baseline"
    case .valueAtMost(let limit): return "≤ \(Self.number(limit))"
    case .valueAtLeast(let limit): return "≥ \(Self.number(limit))"
    case .report: return "report"
    }
  }

  /// `13.80 ms (12.10–20.31)`: the median, then the smallest and largest figure when they
  /// differ, in the median's unit.
  func format(_ spread: Spread) -> String {
    let (scale, suffix) = scaleAndSuffix(spread.median)
    func number(_ value: Double) -> String {
      if case .count = unit { return Self.number(value) }
      return String(format: scale == 1 && suffix.isEmpty ? "%.0f" : "%.2f", value / scale)
    }
    let median = number(spread.median) + (suffix.isEmpty ? "" : " " + suffix)
    return spread.isSingle ? median : "\(median) (\(number(spread.min))–\(number(spread.max)))"
  }

  private func scaleAndSuffix(_ value: Double) -> (Double, String) {
    switch unit {
    case .bytes: return (1e6, "MB")
    case .count(let name): return (1, name)
    case .seconds:
      if value < 1e-6 { return (1e-9, "ns") }
      if value < 1e-3 { return (1e-6, "µs") }
      if value < 1 { return (1e-3, "ms") }
      return (1, "s")
    }
  }

  private static func number(_ value: Double) -> String {
    value == value.rounded() && abs(value) < 1e15
      ? String(Int(value)) : String(format: "%.2f", value)
  }

  var tableRow: String {
    func pad(_ text: String, _ width: Int) -> String {
      text.count >= width ? text + " " : text + String(repeating: " ", count: width - text.count)
    }
    let ratioText: String
    if let ratio {
      ratioText =
        String(format: "%.2f", ratio)
        + (ratios.map { String(format: " (%.2f–%.2f)", $0.min, $0.max) } ?? "")
    } else {
      ratioText = "—"
    }
    let verdict = meetsTarget ? (target == .report ? "—" : "ok") : "MISSED"
    var remarks = [failure, note].compactMap { $0 }.joined(separator: "; ")
    if !remarks.isEmpty { remarks = "  (\(remarks))" }
    return pad(scenario, 24) + pad(String(size), 8) + pad(format(keepsake), 28)
      + pad(baseline.map(format) ?? "—", 28) + pad(ratioText, 19) + pad(targetText, 12)
      + verdict + remarks
  }

  static let tableHeader =
    "scenario                size    keepsake: median (min–max)  "
    + "baseline: median (min–max)  ratio (min–max)    target      "
}
