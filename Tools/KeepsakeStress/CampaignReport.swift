import Foundation

/// What one campaign found: its figures, in the order they are printed, and whether it passed.
///
/// A campaign passes when every figure that counts a loss (an unreadable file, a lost
/// acknowledged save, a crash, a modified damaged file, a torn read) is zero and it recorded no
/// other failure.
public struct CampaignReport: Sendable, CustomStringConvertible {
  /// One printed number.
  public struct Figure: Sendable, Equatable {
    /// What is counted, as printed (`lost acknowledged saves`).
    public var name: String
    /// The count.
    public var value: Int
    /// Whether a non-zero value means data was lost or damaged, which fails the campaign.
    public var isLoss: Bool

    /// Creates a figure.
    public init(_ name: String, _ value: Int, isLoss: Bool = false) {
      self.name = name
      self.value = value
      self.isLoss = isLoss
    }
  }

  /// The campaign's name, as accepted by `--campaign`.
  public var campaign: String
  /// The settings that reproduce the run (`seed 42, 300 kills`).
  public var settings: String
  /// The figures, in print order.
  public var figures: [Figure]
  /// One line per problem found, enough to reproduce it (the case, the input, the operation).
  public var failures: [String]
  /// How long the campaign ran, in seconds.
  public var seconds: Double

  /// Creates a report.
  public init(
    campaign: String, settings: String, figures: [Figure], failures: [String] = [],
    seconds: Double = 0
  ) {
    self.campaign = campaign
    self.settings = settings
    self.figures = figures
    self.failures = failures
    self.seconds = seconds
  }

  /// Whether nothing was lost or damaged.
  public var passed: Bool {
    failures.isEmpty && figures.allSatisfy { !$0.isLoss || $0.value == 0 }
  }

  /// The value of the figure named `name`, or `nil` when the campaign has no such figure.
  public subscript(figure name: String) -> Int? {
    figures.first { $0.name == name }?.value
  }

  /// The report as printed: a header, one figure per line, the first failures, and the verdict.
  public var description: String {
    var lines = ["== \(campaign) (\(settings))"]
    let width = figures.map(\.name.count).max() ?? 0
    for figure in figures {
      let padding = String(repeating: " ", count: width - figure.name.count)
      lines.append("  \(figure.name)\(padding)  \(figure.value)")
    }
    // NB: a campaign can find thousands of problems; the first ones are enough to reproduce.
    for failure in failures.prefix(10) { lines.append("  FAIL \(failure)") }
    if failures.count > 10 { lines.append("  ... and \(failures.count - 10) more") }
    let verdict = passed ? "passed" : "FAILED"
    lines.append("  \(verdict) in \(String(format: "%.1f", seconds)) s")
    return lines.joined(separator: "\n")
  }
}
