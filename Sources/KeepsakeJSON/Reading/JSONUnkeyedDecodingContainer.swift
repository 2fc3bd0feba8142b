// NB: longer than this project's files usually are: `UnkeyedDecodingContainer` asks for one
// `decode` and one `decodeIfPresent` per primitive type, each a few lines that must stay concrete
// (a generic body would box every element, the cost this codec exists to avoid).

/// The fixed parts of an unkeyed container: its array, its path (it is the path's node), and its
/// element count once known.
final class JSONArrayFrame: CodingPathNode {
  let state: JSONDecodingState
  /// The offset of the array's `[`.
  @exclusivity(unchecked) var start = 0
  @exclusivity(unchecked) var count: Int?

  init(state: JSONDecodingState) {
    self.state = state
    super.init(parent: nil, step: nil)
  }

  func reset(start: Int, parent: CodingPathNode?, step: CodingStep?) {
    self.start = start
    self.parent = parent
    self.step = step
    count = nil
  }
}

/// An unkeyed container over a JSON array, reading one element after the other.
///
/// NB: three words (a class reference and two integers), so it fits in an existential's inline
/// buffer and `unkeyedContainer()` allocates no box for it.
struct JSONUnkeyedDecodingContainer: UnkeyedDecodingContainer {
  private let frame: JSONArrayFrame
  /// The offset of the next element, or of the closing `]`.
  private var position: Int
  private(set) var currentIndex = 0

  init(frame: JSONArrayFrame) {
    self.frame = frame
    let state = frame.state
    let offset = frame.start
    position = state.skipWhitespace(from: offset + 1)
    if state.source.base[position] == UInt8(ascii: "]") {
      frame.count = 0
      state.recordEnd(of: offset, position + 1)
    }
  }

  private var state: JSONDecodingState { frame.state }

  var codingPath: [any CodingKey] { CodingPathNode.path(frame) }

  var count: Int? {
    if let count = frame.count { return count }
    let count = countElements()
    frame.count = count
    return count
  }

  var isAtEnd: Bool { state.source.base[position] == UInt8(ascii: "]") }

  mutating func decodeNil() throws -> Bool {
    let value = try next(Never.self)
    guard state.byte(at: value) == UInt8(ascii: "n") else { return false }
    advance(past: value + 4)
    return true
  }

  mutating func decode(_ type: Bool.Type) throws -> Bool {
    let value = try next(type)
    let result = try state.decodeBool(at: value) { path() }
    advance(past: state.skipValue(from: value))
    return result
  }

  mutating func decodeIfPresent(_ type: Bool.Type) throws -> Bool? {
    guard let value = presentValue() else { return nil }
    let result = try state.decodeBool(at: value) { path() }
    advance(past: state.skipValue(from: value))
    return result
  }

  mutating func decode(_ type: String.Type) throws -> String {
    let value = try next(type)
    let end = state.byte(at: value) == JSONBytes.quote ? state.stringContentEnd(from: value) : -1
    let result = try state.decodeString(at: value, contentEnd: end) { path() }
    advance(past: end + 1)
    return result
  }

  mutating func decodeIfPresent(_ type: String.Type) throws -> String? {
    guard let value = presentValue() else { return nil }
    let end = state.byte(at: value) == JSONBytes.quote ? state.stringContentEnd(from: value) : -1
    let result = try state.decodeString(at: value, contentEnd: end) { path() }
    advance(past: end + 1)
    return result
  }

  mutating func decode(_ type: Double.Type) throws -> Double {
    let value = try next(type)
    let result: Double = try state.decodeFloat(at: value) { path() }
    advance(past: state.numberEnd(from: value))
    return result
  }

  mutating func decodeIfPresent(_ type: Double.Type) throws -> Double? {
    guard let value = presentValue() else { return nil }
    let result: Double = try state.decodeFloat(at: value) { path() }
    advance(past: state.numberEnd(from: value))
    return result
  }

  mutating func decode(_ type: Float.Type) throws -> Float {
    let value = try next(type)
    let result: Float = try state.decodeFloat(at: value) { path() }
    advance(past: state.numberEnd(from: value))
    return result
  }

  mutating func decodeIfPresent(_ type: Float.Type) throws -> Float? {
    guard let value = presentValue() else { return nil }
    let result: Float = try state.decodeFloat(at: value) { path() }
    advance(past: state.numberEnd(from: value))
    return result
  }

  mutating func decode(_ type: Int.Type) throws -> Int {
    let value = try next(type)
    let result: Int = try state.decodeInteger(at: value) { path() }
    advance(past: state.numberEnd(from: value))
    return result
  }

  mutating func decodeIfPresent(_ type: Int.Type) throws -> Int? {
    guard let value = presentValue() else { return nil }
    let result: Int = try state.decodeInteger(at: value) { path() }
    advance(past: state.numberEnd(from: value))
    return result
  }

  mutating func decode(_ type: Int8.Type) throws -> Int8 {
    let value = try next(type)
    let result: Int8 = try state.decodeInteger(at: value) { path() }
    advance(past: state.numberEnd(from: value))
    return result
  }

  mutating func decodeIfPresent(_ type: Int8.Type) throws -> Int8? {
    guard let value = presentValue() else { return nil }
    let result: Int8 = try state.decodeInteger(at: value) { path() }
    advance(past: state.numberEnd(from: value))
    return result
  }

  mutating func decode(_ type: Int16.Type) throws -> Int16 {
    let value = try next(type)
    let result: Int16 = try state.decodeInteger(at: value) { path() }
    advance(past: state.numberEnd(from: value))
    return result
  }

  mutating func decodeIfPresent(_ type: Int16.Type) throws -> Int16? {
    guard let value = presentValue() else { return nil }
    let result: Int16 = try state.decodeInteger(at: value) { path() }
    advance(past: state.numberEnd(from: value))
    return result
  }

  mutating func decode(_ type: Int32.Type) throws -> Int32 {
    let value = try next(type)
    let result: Int32 = try state.decodeInteger(at: value) { path() }
    advance(past: state.numberEnd(from: value))
    return result
  }

  mutating func decodeIfPresent(_ type: Int32.Type) throws -> Int32? {
    guard let value = presentValue() else { return nil }
    let result: Int32 = try state.decodeInteger(at: value) { path() }
    advance(past: state.numberEnd(from: value))
    return result
  }

  mutating func decode(_ type: Int64.Type) throws -> Int64 {
    let value = try next(type)
    let result: Int64 = try state.decodeInteger(at: value) { path() }
    advance(past: state.numberEnd(from: value))
    return result
  }

  mutating func decodeIfPresent(_ type: Int64.Type) throws -> Int64? {
    guard let value = presentValue() else { return nil }
    let result: Int64 = try state.decodeInteger(at: value) { path() }
    advance(past: state.numberEnd(from: value))
    return result
  }

  mutating func decode(_ type: Int128.Type) throws -> Int128 {
    let value = try next(type)
    let result: Int128 = try state.decodeInteger(at: value) { path() }
    advance(past: state.numberEnd(from: value))
    return result
  }

  mutating func decodeIfPresent(_ type: Int128.Type) throws -> Int128? {
    guard let value = presentValue() else { return nil }
    let result: Int128 = try state.decodeInteger(at: value) { path() }
    advance(past: state.numberEnd(from: value))
    return result
  }

  mutating func decode(_ type: UInt.Type) throws -> UInt {
    let value = try next(type)
    let result: UInt = try state.decodeInteger(at: value) { path() }
    advance(past: state.numberEnd(from: value))
    return result
  }

  mutating func decodeIfPresent(_ type: UInt.Type) throws -> UInt? {
    guard let value = presentValue() else { return nil }
    let result: UInt = try state.decodeInteger(at: value) { path() }
    advance(past: state.numberEnd(from: value))
    return result
  }

  mutating func decode(_ type: UInt8.Type) throws -> UInt8 {
    let value = try next(type)
    let result: UInt8 = try state.decodeInteger(at: value) { path() }
    advance(past: state.numberEnd(from: value))
    return result
  }

  mutating func decodeIfPresent(_ type: UInt8.Type) throws -> UInt8? {
    guard let value = presentValue() else { return nil }
    let result: UInt8 = try state.decodeInteger(at: value) { path() }
    advance(past: state.numberEnd(from: value))
    return result
  }

  mutating func decode(_ type: UInt16.Type) throws -> UInt16 {
    let value = try next(type)
    let result: UInt16 = try state.decodeInteger(at: value) { path() }
    advance(past: state.numberEnd(from: value))
    return result
  }

  mutating func decodeIfPresent(_ type: UInt16.Type) throws -> UInt16? {
    guard let value = presentValue() else { return nil }
    let result: UInt16 = try state.decodeInteger(at: value) { path() }
    advance(past: state.numberEnd(from: value))
    return result
  }

  mutating func decode(_ type: UInt32.Type) throws -> UInt32 {
    let value = try next(type)
    let result: UInt32 = try state.decodeInteger(at: value) { path() }
    advance(past: state.numberEnd(from: value))
    return result
  }

  mutating func decodeIfPresent(_ type: UInt32.Type) throws -> UInt32? {
    guard let value = presentValue() else { return nil }
    let result: UInt32 = try state.decodeInteger(at: value) { path() }
    advance(past: state.numberEnd(from: value))
    return result
  }

  mutating func decode(_ type: UInt64.Type) throws -> UInt64 {
    let value = try next(type)
    let result: UInt64 = try state.decodeInteger(at: value) { path() }
    advance(past: state.numberEnd(from: value))
    return result
  }

  mutating func decodeIfPresent(_ type: UInt64.Type) throws -> UInt64? {
    guard let value = presentValue() else { return nil }
    let result: UInt64 = try state.decodeInteger(at: value) { path() }
    advance(past: state.numberEnd(from: value))
    return result
  }

  mutating func decode(_ type: UInt128.Type) throws -> UInt128 {
    let value = try next(type)
    let result: UInt128 = try state.decodeInteger(at: value) { path() }
    advance(past: state.numberEnd(from: value))
    return result
  }

  mutating func decodeIfPresent(_ type: UInt128.Type) throws -> UInt128? {
    guard let value = presentValue() else { return nil }
    let result: UInt128 = try state.decodeInteger(at: value) { path() }
    advance(past: state.numberEnd(from: value))
    return result
  }

  mutating func decode<T: Decodable>(_ type: T.Type) throws -> T {
    var end = -1
    return try decodeElement(type, end: &end)
  }

  /// Decodes the next element; `end` is set to the offset just past it.
  ///
  /// NB: always inlined: otherwise `decode(_:)` calls it, paying for a call on every element.
  @inline(__always)
  mutating func decodeElement<T: Decodable>(_ type: T.Type, end: inout Int) throws -> T {
    let value = try next(type)
    end = -1
    let result = try state.decodeValue(
      type, at: value, parent: frame, step: .index(currentIndex), end: &end)
    if end < 0 { end = state.skipValue(from: value) }
    advance(past: end)
    return result
  }

  /// Moves past the first `count` elements without decoding them, the last of which ends just
  /// before `end`: for a caller that knows they are the bytes of elements it decoded before
  /// (``KeepsakeJSONDecoder/decodeArray(of:from:reusing:)``).
  mutating func skipElements(_ count: Int, lastEndingAt end: Int) {
    guard count > 0 else { return }
    currentIndex = count - 1
    advance(past: end)
  }

  mutating func decodeIfPresent<T: Decodable>(_ type: T.Type) throws -> T? {
    guard let value = presentValue() else { return nil }
    var end = -1
    let result = try state.decodeValue(
      type, at: value, parent: frame, step: .index(currentIndex), end: &end)
    advance(past: end >= 0 ? end : state.skipValue(from: value))
    return result
  }

  mutating func nestedContainer<NestedKey: CodingKey>(
    keyedBy type: NestedKey.Type
  ) throws -> KeyedDecodingContainer<NestedKey> {
    let value = try next(KeyedDecodingContainer<NestedKey>.self)
    let container = try state.keyedContainer(
      keyedBy: type, at: value, parent: frame, step: .index(currentIndex))
    advance(past: state.skipValue(from: value))
    return container
  }

  mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
    let value = try next((any UnkeyedDecodingContainer).self)
    let container = try state.unkeyedContainer(
      at: value, parent: frame, step: .index(currentIndex))
    advance(past: state.skipValue(from: value))
    return container
  }

  mutating func superDecoder() throws -> any Decoder {
    let value = try next(
      (any Decoder).self, message: "Cannot get superDecoder() -- unkeyed container is at end.")
    let decoder = state.subdecoder(at: value, parent: frame, step: .index(currentIndex))
    advance(past: state.skipValue(from: value))
    return decoder
  }

  // MARK: - Helpers

  /// The offset of the next element; at the end, Foundation's `valueNotFound` for `type`.
  private func next<T>(
    _ type: T.Type, message: String = "Unkeyed container is at end."
  ) throws -> Int {
    guard !isAtEnd else {
      throw DecodingError.valueNotFound(
        type, .init(codingPath: path(), debugDescription: message))
    }
    return position
  }

  /// The next element for `decodeIfPresent`: `nil` (moving on) at the end or for `null`.
  private mutating func presentValue() -> Int? {
    if isAtEnd {
      // NB: Foundation moves on past the end too, so the next error names the next index.
      currentIndex += 1
      return nil
    }
    guard state.byte(at: position) == UInt8(ascii: "n") else { return position }
    advance(past: position + 4)
    return nil
  }

  /// Moves to the element after the one ending at `end`.
  private mutating func advance(past end: Int) {
    currentIndex += 1
    let base = state.source.base
    var index = state.skipWhitespace(from: end)
    if base[index] == UInt8(ascii: ",") {
      index = state.skipWhitespace(from: index + 1)
    }
    position = index
    if base[index] == UInt8(ascii: "]") {
      if frame.count == nil { frame.count = currentIndex }
      state.recordEnd(of: frame.start, index + 1)
    }
  }

  private func path() -> [any CodingKey] {
    CodingPathNode.path(frame, appending: .index(currentIndex))
  }

  private func countElements() -> Int {
    var count = currentIndex
    var index = position
    let base = state.source.base
    while base[index] != UInt8(ascii: "]") {
      count += 1
      index = state.skipWhitespace(from: state.skipValue(from: index))
      if base[index] == UInt8(ascii: ",") { index = state.skipWhitespace(from: index + 1) }
    }
    return count
  }
}
