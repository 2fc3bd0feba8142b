/// Why a fault plan written as text could not be read, and where.
///
/// ```swift
/// do {
///   _ = try FaultPlan(parsing: "2*throw(timeuot)")
/// } catch {
///   print(error)  // column 9: unknown error 'timeuot'; expected timeout, ...
/// }
/// ```
public struct FaultPlanParseError: Error, Hashable, Sendable, CustomStringConvertible {
  /// What is wrong, in one sentence without the position.
  public var message: String
  /// The part of the input that is wrong; empty when something is missing at the end.
  public var offendingText: String
  /// Where ``offendingText`` starts in the input, counted in characters from 0.
  public var offset: Int

  /// Creates an error; the parser makes these, tests may compare against them.
  public init(message: String, offendingText: String, offset: Int) {
    self.message = message
    self.offendingText = offendingText
    self.offset = offset
  }

  /// Where ``offendingText`` starts, counted in characters from 1, as editors do.
  public var column: Int { offset + 1 }

  /// The message with its column, as in `column 9: unknown error 'timeuot'; ...`.
  public var description: String { "column \(column): \(message)" }
}
