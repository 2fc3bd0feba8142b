import Foundation

/// How each scenario's figures grow with its size: the factor from one size to the next, and
/// what that makes the growth (constant, linear, quadratic).
enum ScalingReport {
  /// One line per scenario measured at two sizes or more, in seconds or bytes.
  static func lines(_ results: [BenchmarkResult]) -> [String] {
    var order: [String] = []
    var rows: [String: [BenchmarkResult]] = [:]
    for result in results where result.unit == .seconds || result.unit == .bytes {
      if rows[result.scenario] == nil { order.append(result.scenario) }
      rows[result.scenario, default: []].append(result)
    }
    return order.compactMap { scenario in
      let measured = Dictionary(grouping: rows[scenario] ?? [], by: \.size).values
        .compactMap(\.first).sorted { $0.size < $1.size }
      guard measured.count > 1 else { return nil }
      return line(scenario, measured)
    }
  }

  /// `durable-save   keepsake ×9.8 ×10.3, baseline ×9.6 ×10.1: linear, as its baseline`.
  static func line(_ scenario: String, _ measured: [BenchmarkResult]) -> String {
    let steps = zip(measured, measured.dropFirst())
    let ours = steps.map { factor($0.keepsake.median, $1.keepsake.median) }
    let exponents = steps.map { pair in
      exponent(pair.0.keepsake.median, pair.1.keepsake.median, pair.0.size, pair.1.size)
        + (pair.0.perItem ? 1 : 0)
    }
    let sizes = measured.map { String($0.size) }.joined(separator: "→")
    var text =
      scenario.padding(toLength: 24, withPad: " ", startingAt: 0)
      + "\(sizes): keepsake " + ours.map { String(format: "×%.2f", $0) }.joined(separator: " ")
    if measured.allSatisfy({ $0.baseline != nil }) {
      let theirs = steps.map { factor($0.baseline!.median, $1.baseline!.median) }
      text += ", baseline " + theirs.map { String(format: "×%.2f", $0) }.joined(separator: " ")
    }
    let growth = exponents.map(describe).joined(separator: ", then ")
    return text + " — " + growth + (measured[0].perItem ? " in total (figures are per key)" : "")
  }

  private static func factor(_ from: Double, _ to: Double) -> Double {
    from > 0 ? to / from : .infinity
  }

  /// The exponent `e` of `figure ∝ size^e` between two sizes.
  static func exponent(_ from: Double, _ to: Double, _ fromSize: Int, _ toSize: Int) -> Double {
    guard from > 0, to > 0, toSize != fromSize else { return .nan }
    return log(to / from) / log(Double(toSize) / Double(fromSize))
  }

  /// The growth an exponent stands for.
  static func describe(_ exponent: Double) -> String {
    let text = String(format: "exponent %.2f", exponent)
    switch exponent {
    case ..<0.3: return "constant (\(text))"
    case ..<0.8: return "sublinear (\(text)): fixed costs dominate"
    case ..<1.25: return "linear (\(text))"
    case ..<1.7: return "superlinear (\(text))"
    default: return "quadratic or worse (\(text))"
    }
  }
}
