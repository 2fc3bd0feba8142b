/// One call that went through a ``FaultInjector`` seam, as recorded in its log.
///
/// The call is recorded on entry, before any fault fires, so a call parked at a
/// gate or held by a delay shows up as ``Outcome/pending``, and a call that
/// was made to fail is still counted.
public struct FaultCall<Method: Hashable & Sendable>: Sendable, CustomStringConvertible {
  /// What the seam did with a call.
  public enum Outcome: Sendable, Hashable, CustomStringConvertible {
    /// The call is still inside the seam: held by a delay or parked at a gate.
    case pending
    /// The seam let the call through. The mock went on; whether its own work
    /// then succeeded is not known here.
    case returned
    /// The seam threw; the associated text is the error's `String(describing:)`.
    case threw(String)
    /// The task was cancelled while the seam held the call.
    case cancelled

    /// A short word for the outcome, as used in ``FaultCall/description``.
    public var description: String {
      switch self {
      case .pending: return "pending"
      case .returned: return "returned"
      case .threw(let error): return "threw(\(error))"
      case .cancelled: return "cancelled"
      }
    }
  }

  /// The call's place in the order of all calls to the injector, from 1.
  public let sequence: Int
  /// The method that was called.
  public let method: Method
  /// The arguments the mock passed to the seam, if any.
  public let arguments: (any Sendable)?
  /// What the seam did with the call so far.
  public internal(set) var outcome: Outcome

  /// The arguments as `type`, or `nil` when none were given or they are of another type.
  public func arguments<Arguments: Sendable>(as type: Arguments.Type) -> Arguments? {
    arguments as? Arguments
  }

  /// The call on one line, such as `#3 fetchPage(2) -> threw(The request timed out.)`.
  public var description: String {
    let argumentsText = arguments.map { "(\(String(describing: $0)))" } ?? ""
    return "#\(sequence) \(method)\(argumentsText) -> \(outcome)"
  }
}
