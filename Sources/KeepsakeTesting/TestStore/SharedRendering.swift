import Keepsake

/// Renders the shared values a test store tracks but the state does not contain, so their
/// changes show up in a failure's diff under their key.
enum SharedRendering {
  /// For every key in both lists, outside `excluding`, whose values render differently: a
  /// `Shared(key) value` section for the expected and for the actual text.
  static func changes(
    expected: [SharedChangeTracker.TrackedValue],
    actual: [SharedChangeTracker.TrackedValue],
    excluding keys: Set<SharedKeyID>
  ) -> (expected: String, actual: String) {
    let actualByKey = Dictionary(actual.map { ($0.keyID, $0.value) }) { first, _ in first }
    var expectedText = ""
    var actualText = ""
    for entry in expected.sorted(by: { $0.keyID.description < $1.keyID.description })
    where !keys.contains(entry.keyID) {
      guard let actualValue = actualByKey[entry.keyID] else { continue }
      let expectedRendering = ValueDump.render(entry.value)
      let actualRendering = ValueDump.render(actualValue)
      guard expectedRendering != actualRendering else { continue }
      expectedText += "\nShared(\(entry.keyDescription)) \(expectedRendering)"
      actualText += "\nShared(\(entry.keyDescription)) \(actualRendering)"
    }
    return (expectedText, actualText)
  }
}
