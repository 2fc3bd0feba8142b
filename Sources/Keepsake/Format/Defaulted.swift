/// A stored property that decodes as a default value when its key is missing from the file.
///
/// Synthesized `Decodable` ignores a property's default value: a key missing from an older file
/// throws `keyNotFound`, and if that error leads an app to start from an empty value, the next
/// save replaces the user's file. `@Defaulted` makes the safe path the easy one:
///
/// ```swift
/// struct Note: Codable {
///   var text: String
///   @Defaulted<DefaultValue.False> var pinned: Bool       // missing key → false
///   @Defaulted<DefaultValue.Empty<[String]>> var tags: [String]  // missing key → []
/// }
/// ```
///
/// The rules, which keep it from hiding real damage:
/// - a **missing** key, or an explicit `null`, decodes as `Provider.defaultValue`;
/// - a **present** key with the wrong type is still an error (`typeMismatch`), never defaulted;
/// - the value encodes as the plain value (`"pinned": false`), so files look the same with or
///   without the wrapper.
///
/// Use it for a field that a newer model adds when files without it must keep reading. It does
/// not replace a version bump when the meaning of existing data changes.
///
/// It is `Equatable`, `Hashable` and `Sendable` when the value is.
@propertyWrapper
public struct Defaulted<Provider: DefaultValueProvider> {
  /// The property's value.
  public var wrappedValue: Provider.Value

  /// Wraps an explicit value (`@Defaulted<DefaultValue.False> var pinned = true`).
  public init(wrappedValue: Provider.Value) {
    self.wrappedValue = wrappedValue
  }

  /// Wraps the provider's default value.
  public init() {
    self.wrappedValue = Provider.defaultValue
  }
}

extension Defaulted: Decodable where Provider.Value: Decodable {
  /// Decodes the plain value.
  ///
  /// A missing key never reaches here: see `KeyedDecodingContainer.decode(_:forKey:)`.
  ///
  /// - Throws: The `DecodingError` for a value of the wrong type.
  public init(from decoder: any Decoder) throws {
    self.init(wrappedValue: try decoder.singleValueContainer().decode(Provider.Value.self))
  }
}

extension Defaulted: Encodable where Provider.Value: Encodable {
  /// Encodes the plain value, as if the property had no wrapper.
  ///
  /// - Throws: The `EncodingError` of the value's own encoding.
  public func encode(to encoder: any Encoder) throws {
    var container = encoder.singleValueContainer()
    try container.encode(wrappedValue)
  }
}

extension Defaulted: Equatable where Provider.Value: Equatable {}
extension Defaulted: Hashable where Provider.Value: Hashable {}
extension Defaulted: Sendable where Provider.Value: Sendable {}

extension Defaulted: CustomStringConvertible {
  /// The wrapped value's description.
  public var description: String { String(describing: wrappedValue) }
}

extension KeyedDecodingContainer {
  /// Decodes a ``Defaulted`` property: a missing key or `null` gives the provider's default.
  ///
  /// Synthesized `Decodable` calls this overload for `@Defaulted` properties; it is what turns a
  /// missing key into the default instead of `keyNotFound`.
  ///
  /// - Throws: `DecodingError.typeMismatch` (or the value's own error) when the key holds a value
  ///   of the wrong type: present but wrong data is never silently replaced.
  public func decode<Provider>(
    _ type: Defaulted<Provider>.Type,
    forKey key: Key
  ) throws -> Defaulted<Provider> where Provider.Value: Decodable {
    Defaulted(
      wrappedValue: try decodeIfPresent(Provider.Value.self, forKey: key) ?? Provider.defaultValue)
  }
}
