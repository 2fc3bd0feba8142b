/// Reads the child action out of a parent action by reflection, for ``Scope`` (no macros, so
/// no generated case paths).
package enum ActionReflection {
  /// The payload of `action` when it is the enum case that `embed` builds, or `nil`.
  package static func extract<Parent, Child>(
    _ action: Parent, embeddedBy embed: (Child) -> Parent
  ) -> Child? {
    guard let (caseName, payload) = casePayload(of: action) else { return nil }
    let child: Child
    if let value = payload as? Child {
      child = value
    } else if let value = Mirror(reflecting: payload).children.first?.value as? Child,
      Mirror(reflecting: payload).children.count == 1
    {
      // A case with one labeled associated value reflects as a one-element tuple.
      child = value
    } else {
      return nil
    }
    // NB: several cases may carry the same payload type; only the case `embed` builds counts.
    guard casePayload(of: embed(child))?.caseName == caseName else { return nil }
    return child
  }

  private static func casePayload(of value: Any) -> (caseName: String, payload: Any)? {
    let mirror = Mirror(reflecting: value)
    guard mirror.displayStyle == .enum, let child = mirror.children.first,
      let label = child.label
    else { return nil }
    return (label, child.value)
  }
}
