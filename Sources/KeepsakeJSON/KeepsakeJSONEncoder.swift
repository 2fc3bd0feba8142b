import Foundation

/// Keepsake's JSON encoder: the bytes of Foundation's `JSONEncoder` with `.sortedKeys`, at least
/// twice as fast.
///
/// The output is byte for byte what Foundation writes with `outputFormatting = [.sortedKeys]` and
/// the default strategies: compact; keys sorted by their UTF-8 bytes; `/` escaped as `\/`, the
/// control characters escaped (`\n`, `\u001f`), nothing else; numbers as Swift describes them,
/// without a trailing `.0` (`1`, `0.1`, `1e+20`); dates as seconds since 2001; data as Base64;
/// URLs as their absolute string; NaN and infinities refused with `EncodingError.invalidValue`.
/// Errors are Foundation's, with the same coding paths.
///
/// It writes bytes as the value encodes itself instead of building a tree first (see
/// ``JSONEncodingState``). The few ways of using containers that cannot be written in one pass
/// (such as `superEncoder()`) are handed to Foundation's encoder, which then encodes the value.
///
/// One known difference, on purpose: when a type catches an error thrown inside a nested value's
/// `encode(to:)` and goes on, Foundation reuses that value's half-written container for the next
/// value of the same container (the failed value's members appear there, or Foundation traps);
/// this encoder keeps nothing of the failed value. Its bytes are what the type meant, and both
/// decoders read them.
package struct KeepsakeJSONEncoder: Sendable {
  package init() {}

  /// Encodes `value` as JSON with sorted keys.
  ///
  /// - Throws: `EncodingError.invalidValue` for a non-finite float, for containers nested 512
  ///   deep or a top-level value that encodes nothing (as Foundation does); errors thrown by the
  ///   value's own `encode(to:)` pass through.
  package func encode<T: Encodable>(_ value: T) throws -> Data {
    let state = JSONEncodingState()
    do {
      try state.encodeValue(value, index: nil, isTopLevel: true)
    } catch {
      guard state.needsFoundation else { throw error }
    }
    if state.needsFoundation {
      let encoder = JSONEncoder()
      encoder.outputFormatting = [.sortedKeys]
      return try encoder.encode(value)
    }
    if state.isTooDeep {
      throw EncodingError.invalidValue(
        value,
        .init(
          codingPath: [], debugDescription: "Unable to encode the given top-level value to JSON."))
    }
    return state.output.takeData()
  }
}
