/// Helpers for JSON-level migration steps.
///
/// Each helper checks the JSON type it needs and throws a ``MigrationError`` carrying the path to
/// the offending value, so a failed step reports `content[3]: expected an object, found a string`
/// instead of doing something silently wrong.
extension JSONValue {
  /// Renames `oldKey` to `newKey` in this object; does nothing when `oldKey` is absent.
  ///
  /// An absent key is left for the next version's decoding to report, with the file's own path.
  ///
  /// - Throws: ``MigrationError`` when this is not an object, or when `newKey` already exists
  ///   (a rename must never overwrite data).
  public mutating func renameKey(_ oldKey: String, to newKey: String) throws(MigrationError) {
    var object = try takeObject()
    defer { self = .object(object) }
    guard let value = object[oldKey] else { return }
    guard object[newKey] == nil else {
      throw MigrationError("cannot rename \"\(oldKey)\" to \"\(newKey)\": both keys exist")
    }
    object[oldKey] = nil
    object[newKey] = value
  }

  /// Sets `key` to `value` in this object, replacing any existing value.
  ///
  /// - Throws: ``MigrationError`` when this is not an object.
  public mutating func setValue(_ value: JSONValue, forKey key: String) throws(MigrationError) {
    var object = try takeObject()
    object[key] = value
    self = .object(object)
  }

  /// Sets `key` to `value` in this object only when the key is absent, keeping data already there.
  ///
  /// - Throws: ``MigrationError`` when this is not an object.
  public mutating func addMissingKey(_ key: String, value: JSONValue) throws(MigrationError) {
    var object = try takeObject()
    if object[key] == nil { object[key] = value }
    self = .object(object)
  }

  /// Removes `key` from this object, returning its value.
  ///
  /// > Important: Removing a key drops the user's data for good; prefer keeping it (unknown keys
  /// > are ignored when decoding) unless the field was derived or sensitive.
  ///
  /// - Throws: ``MigrationError`` when this is not an object.
  @discardableResult
  public mutating func removeKey(_ key: String) throws(MigrationError) -> JSONValue? {
    var object = try takeObject()
    let removed = object.removeValue(forKey: key)
    self = .object(object)
    return removed
  }

  /// Runs `body` on every element of this array, in place.
  ///
  /// - Throws: ``MigrationError`` when this is not an array, or the error `body` threw (as a
  ///   ``MigrationError``), with the element's index added to its path.
  public mutating func updateElements(
    _ body: (inout JSONValue) throws -> Void
  ) throws(MigrationError) {
    guard case .array(var array) = self else {
      throw MigrationError("expected an array, found \(typeDescription)")
    }
    // NB: Releasing `self`'s reference first lets the array be mutated without a copy.
    self = .null
    defer { self = .array(array) }
    for index in array.indices {
      do {
        try body(&array[index])
      } catch {
        throw MigrationError(error).prefixed(by: .index(index))
      }
    }
  }

  /// Runs `body` on the value at `key` of this object, in place.
  ///
  /// - Throws: ``MigrationError`` when this is not an object, when `key` is absent, or the error
  ///   `body` threw (as a ``MigrationError``), with `key` added to its path.
  public mutating func updateValue(
    forKey key: String,
    _ body: (inout JSONValue) throws -> Void
  ) throws(MigrationError) {
    var object = try takeObject()
    defer { self = .object(object) }
    guard var value = object.removeValue(forKey: key) else {
      throw MigrationError("the key \"\(key)\" is missing")
    }
    defer { object[key] = value }
    do {
      try body(&value)
    } catch {
      throw MigrationError(error).prefixed(by: .key(key))
    }
  }

  /// Moves the object out of `self` (leaving `.null` until it is put back) so it can be mutated
  /// without a copy.
  private mutating func takeObject() throws(MigrationError) -> [String: JSONValue] {
    guard case .object(let object) = self else {
      throw MigrationError("expected an object, found \(typeDescription)")
    }
    self = .null
    return object
  }
}
