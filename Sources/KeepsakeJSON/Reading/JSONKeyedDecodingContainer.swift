/// A keyed container over a ``JSONObjectTable``: members are found by their key's bytes.
///
/// Errors are Foundation's, case, coding path and message: `keyNotFound` for a missing key,
/// `valueNotFound` for `null` where a value is needed (but a type mismatch for `Bool`, as in
/// Foundation), `typeMismatch` naming what was found.
struct JSONKeyedDecodingContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
  let table: JSONObjectTable

  private var state: JSONDecodingState { table.state }

  var codingPath: [any CodingKey] { CodingPathNode.path(table) }

  var allKeys: [Key] { table.keys().compactMap { Key(stringValue: $0) } }

  func contains(_ key: Key) -> Bool { table.member(named: key.stringValue) != nil }

  func decodeNil(forKey key: Key) throws -> Bool {
    state.byte(at: try member(key).valueStart) == UInt8(ascii: "n")
  }

  func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool {
    try state.decodeBool(at: try member(key).valueStart) { path(key) }
  }

  func decodeIfPresent(_ type: Bool.Type, forKey key: Key) throws -> Bool? {
    guard let value = presentValue(key) else { return nil }
    return try state.decodeBool(at: value) { path(key) }
  }

  func decode(_ type: String.Type, forKey key: Key) throws -> String {
    let member = try member(key)
    return try state.decodeString(at: member.valueStart, contentEnd: member.valueEnd - 1) {
      path(key)
    }
  }

  func decodeIfPresent(_ type: String.Type, forKey key: Key) throws -> String? {
    guard let member = table.member(named: key.stringValue),
      state.byte(at: member.valueStart) != UInt8(ascii: "n")
    else { return nil }
    return try state.decodeString(at: member.valueStart, contentEnd: member.valueEnd - 1) {
      path(key)
    }
  }

  func decode(_ type: Double.Type, forKey key: Key) throws -> Double {
    try state.decodeFloat(at: try member(key).valueStart) { path(key) }
  }

  func decodeIfPresent(_ type: Double.Type, forKey key: Key) throws -> Double? {
    guard let value = presentValue(key) else { return nil }
    return try state.decodeFloat(at: value) { path(key) }
  }

  func decode(_ type: Float.Type, forKey key: Key) throws -> Float {
    try state.decodeFloat(at: try member(key).valueStart) { path(key) }
  }

  func decodeIfPresent(_ type: Float.Type, forKey key: Key) throws -> Float? {
    guard let value = presentValue(key) else { return nil }
    return try state.decodeFloat(at: value) { path(key) }
  }

  func decode(_ type: Int.Type, forKey key: Key) throws -> Int {
    try state.decodeInteger(at: try member(key).valueStart) { path(key) }
  }

  func decodeIfPresent(_ type: Int.Type, forKey key: Key) throws -> Int? {
    guard let value = presentValue(key) else { return nil }
    return try state.decodeInteger(at: value) { path(key) }
  }

  func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 {
    try state.decodeInteger(at: try member(key).valueStart) { path(key) }
  }

  func decodeIfPresent(_ type: Int8.Type, forKey key: Key) throws -> Int8? {
    guard let value = presentValue(key) else { return nil }
    return try state.decodeInteger(at: value) { path(key) }
  }

  func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 {
    try state.decodeInteger(at: try member(key).valueStart) { path(key) }
  }

  func decodeIfPresent(_ type: Int16.Type, forKey key: Key) throws -> Int16? {
    guard let value = presentValue(key) else { return nil }
    return try state.decodeInteger(at: value) { path(key) }
  }

  func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 {
    try state.decodeInteger(at: try member(key).valueStart) { path(key) }
  }

  func decodeIfPresent(_ type: Int32.Type, forKey key: Key) throws -> Int32? {
    guard let value = presentValue(key) else { return nil }
    return try state.decodeInteger(at: value) { path(key) }
  }

  func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 {
    try state.decodeInteger(at: try member(key).valueStart) { path(key) }
  }

  func decodeIfPresent(_ type: Int64.Type, forKey key: Key) throws -> Int64? {
    guard let value = presentValue(key) else { return nil }
    return try state.decodeInteger(at: value) { path(key) }
  }

  func decode(_ type: Int128.Type, forKey key: Key) throws -> Int128 {
    try state.decodeInteger(at: try member(key).valueStart) { path(key) }
  }

  func decodeIfPresent(_ type: Int128.Type, forKey key: Key) throws -> Int128? {
    guard let value = presentValue(key) else { return nil }
    return try state.decodeInteger(at: value) { path(key) }
  }

  func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt {
    try state.decodeInteger(at: try member(key).valueStart) { path(key) }
  }

  func decodeIfPresent(_ type: UInt.Type, forKey key: Key) throws -> UInt? {
    guard let value = presentValue(key) else { return nil }
    return try state.decodeInteger(at: value) { path(key) }
  }

  func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 {
    try state.decodeInteger(at: try member(key).valueStart) { path(key) }
  }

  func decodeIfPresent(_ type: UInt8.Type, forKey key: Key) throws -> UInt8? {
    guard let value = presentValue(key) else { return nil }
    return try state.decodeInteger(at: value) { path(key) }
  }

  func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 {
    try state.decodeInteger(at: try member(key).valueStart) { path(key) }
  }

  func decodeIfPresent(_ type: UInt16.Type, forKey key: Key) throws -> UInt16? {
    guard let value = presentValue(key) else { return nil }
    return try state.decodeInteger(at: value) { path(key) }
  }

  func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 {
    try state.decodeInteger(at: try member(key).valueStart) { path(key) }
  }

  func decodeIfPresent(_ type: UInt32.Type, forKey key: Key) throws -> UInt32? {
    guard let value = presentValue(key) else { return nil }
    return try state.decodeInteger(at: value) { path(key) }
  }

  func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 {
    try state.decodeInteger(at: try member(key).valueStart) { path(key) }
  }

  func decodeIfPresent(_ type: UInt64.Type, forKey key: Key) throws -> UInt64? {
    guard let value = presentValue(key) else { return nil }
    return try state.decodeInteger(at: value) { path(key) }
  }

  func decode(_ type: UInt128.Type, forKey key: Key) throws -> UInt128 {
    try state.decodeInteger(at: try member(key).valueStart) { path(key) }
  }

  func decodeIfPresent(_ type: UInt128.Type, forKey key: Key) throws -> UInt128? {
    guard let value = presentValue(key) else { return nil }
    return try state.decodeInteger(at: value) { path(key) }
  }

  func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
    try state.decodeValue(type, at: try member(key).valueStart, parent: table, step: .key(key))
  }

  func decodeIfPresent<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T? {
    guard let value = presentValue(key) else { return nil }
    return try state.decodeValue(type, at: value, parent: table, step: .key(key))
  }

  func nestedContainer<NestedKey: CodingKey>(
    keyedBy type: NestedKey.Type, forKey key: Key
  ) throws -> KeyedDecodingContainer<NestedKey> {
    try state.keyedContainer(
      keyedBy: type, at: try member(key).valueStart, parent: table, step: .key(key))
  }

  func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
    try state.unkeyedContainer(at: try member(key).valueStart, parent: table, step: .key(key))
  }

  func superDecoder() throws -> any Decoder {
    subdecoder(for: JSONCodingKey.superKey)
  }

  func superDecoder(forKey key: Key) throws -> any Decoder {
    subdecoder(for: key)
  }

  // MARK: - Helpers

  /// A decoder for `key`'s value, or for `null` when there is none (as in Foundation).
  private func subdecoder(for key: some CodingKey) -> JSONDecodingState {
    let value = table.member(named: key.stringValue)?.valueStart ?? -1
    return state.subdecoder(at: value, parent: table, step: .key(key))
  }

  private func member(_ key: Key) throws -> JSONObjectTable.Member {
    guard let member = table.member(named: key.stringValue) else {
      throw DecodingError.keyNotFound(
        key,
        .init(
          codingPath: codingPath,
          debugDescription: "No value associated with key \(key) (\"\(key.stringValue)\")."))
    }
    return member
  }

  /// The offset of `key`'s value, unless it is missing or `null` (`decodeIfPresent`).
  private func presentValue(_ key: Key) -> Int? {
    guard let member = table.member(named: key.stringValue),
      state.byte(at: member.valueStart) != UInt8(ascii: "n")
    else { return nil }
    return member.valueStart
  }

  private func path(_ key: Key) -> [any CodingKey] {
    CodingPathNode.path(table, appending: .key(key))
  }
}
