import Foundation

// NB: one concept, a little over 300 lines: the decoder's shared state (input, position, pools
// of containers, the error it reports); its reading of values, numbers and single values lives in
// `JSONDecodingState+Values.swift`, `+Numbers.swift` and `+SingleValue.swift`.

/// A failure that Foundation reports as "not valid JSON" however deep it happens: a malformed
/// number, string escape or UTF-8 in a value that is decoded, or a number out of its type's range.
///
/// NB: Foundation throws its internal `JSONError` for these from inside `init(from:)`; it is not a
/// `DecodingError`, so `catch let error as DecodingError` in a type's decoding code does not see
/// it, and `KeepsakeJSONDecoder` turns it into `DecodingError.dataCorrupted` at the top level with
/// an empty coding path, as Foundation does.
struct JSONLazyError: Error {}

/// The document being decoded: its bytes, borrowed for the duration of `decode`, or owned.
final class JSONSource {
  @exclusivity(unchecked) private(set) var base: UnsafePointer<UInt8>
  let count: Int
  @exclusivity(unchecked) private var owned: UnsafeMutablePointer<UInt8>?

  init(base: UnsafePointer<UInt8>, count: Int) {
    self.base = base
    self.count = count
  }

  /// Copies the bytes, for containers or decoders that outlive the call to `decode`.
  func takeOwnership() {
    guard owned == nil else { return }
    let copy = UnsafeMutablePointer<UInt8>.allocate(capacity: count)
    copy.initialize(from: base, count: count)
    owned = copy
    base = UnsafePointer(copy)
  }

  deinit { owned?.deallocate() }
}

/// The `Decoder` of Keepsake's JSON codec: one instance per document, pointed at each value in
/// turn (Foundation's decoder works the same way).
///
/// A value is an offset into the bytes, of its first byte (`-1` stands for a `null` that is not in
/// the document, which `superDecoder(forKey:)` hands out for a missing key). The bytes have passed
/// ``JSONReader``, so the structure needs no checking here; only the contents of the
/// values that are decoded are checked.
final class JSONDecodingState: Decoder {
  // NB: `@exclusivity(unchecked)` on the mutable state of the codec's classes: a class's stored
  // properties are otherwise checked for exclusive access on every access at run time, which
  // cost about a third of the decoding time (the standard library and Foundation are built with
  // `-enforce-exclusivity=unchecked`). A decoder belongs to one `decode` call on one thread, and
  // no user code runs while one of these properties is being accessed.
  @exclusivity(unchecked) var source: JSONSource
  /// The value being decoded.
  @exclusivity(unchecked) var position: Int
  /// The container holding the value (`nil`: the top level), and the value's step in it.
  @exclusivity(unchecked) var parent: CodingPathNode?
  @exclusivity(unchecked) var step: CodingStep?
  /// Where the value starting at `endStart` ends, when something already found out.
  @exclusivity(unchecked) private var endStart = -2
  @exclusivity(unchecked) private var endOffset = 0
  /// Containers' storage, reused once nothing else refers to it (see ``reusable(_:make:)``).
  @exclusivity(unchecked) private var tables: [JSONObjectTable] = []
  @exclusivity(unchecked) private var frames: [JSONArrayFrame] = []

  init(source: JSONSource, position: Int, parent: CodingPathNode?, step: CodingStep?) {
    self.source = source
    self.position = position
    self.parent = parent
    self.step = step
  }

  var codingPath: [any CodingKey] { CodingPathNode.path(parent, appending: step) }
  var userInfo: [CodingUserInfoKey: Any] { [:] }

  func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
    try keyedContainer(keyedBy: type, at: position, parent: parent, step: step)
  }

  func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
    try unkeyedContainer(at: position, parent: parent, step: step)
  }

  func singleValueContainer() throws -> any SingleValueDecodingContainer { self }

  // MARK: - Containers

  func keyedContainer<Key: CodingKey>(
    keyedBy type: Key.Type, at offset: Int, parent: CodingPathNode?, step: CodingStep?
  ) throws -> KeyedDecodingContainer<Key> {
    switch byte(at: offset) {
    case UInt8(ascii: "{"):
      let table = Self.reusable(&tables) { JSONObjectTable(state: self) }
      try table.read(object: offset, parent: parent, step: step)
      return KeyedDecodingContainer(JSONKeyedDecodingContainer<Key>(table: table))
    case UInt8(ascii: "n"):
      throw DecodingError.valueNotFound(
        [String: Any].self,
        .init(
          codingPath: CodingPathNode.path(parent, appending: step),
          debugDescription: "Cannot get keyed decoding container -- found null value instead"))
    default:
      throw DecodingError.typeMismatch(
        [String: Any].self,
        .init(
          codingPath: CodingPathNode.path(parent, appending: step),
          debugDescription:
            "Expected to decode \([String: Any].self) but found \(typeDescription(at: offset)) "
            + "instead."))
    }
  }

  func unkeyedContainer(
    at offset: Int, parent: CodingPathNode?, step: CodingStep?
  ) throws -> JSONUnkeyedDecodingContainer {
    switch byte(at: offset) {
    case UInt8(ascii: "["):
      let frame = Self.reusable(&frames) { JSONArrayFrame(state: self) }
      frame.reset(start: offset, parent: parent, step: step)
      return JSONUnkeyedDecodingContainer(frame: frame)
    case UInt8(ascii: "n"):
      throw DecodingError.valueNotFound(
        [Any].self,
        .init(
          codingPath: CodingPathNode.path(parent, appending: step),
          debugDescription: "Cannot get unkeyed decoding container -- found null value instead"))
    default:
      throw DecodingError.typeMismatch(
        [Any].self,
        .init(
          codingPath: CodingPathNode.path(parent, appending: step),
          debugDescription:
            "Expected to decode \([Any].self) but found \(typeDescription(at: offset)) instead."))
    }
  }

  /// A pooled object that nothing else refers to any more, or a new one (added to the pool).
  ///
  /// NB: a container's storage is referenced by the container, by the containers and decoders
  /// nested in it (as their path's parent) and by the pool; when only the pool holds it, it is
  /// free. Decoding an array of objects thus reuses one table for every element.
  private static func reusable<Object: AnyObject>(
    _ pool: inout [Object], make: () -> Object
  ) -> Object {
    var index = pool.count - 1
    while index >= max(0, pool.count - 4) {
      if isKnownUniquelyReferenced(&pool[index]) { return pool[index] }
      index -= 1
    }
    let object = make()
    if pool.count < 64 { pool.append(object) }
    return object
  }

  /// Lets go of the pooled containers when decoding is over.
  ///
  /// NB: pooled storage refers back to this decoder (a container's storage needs it), so the
  /// pools are cycles until they are emptied; a container a type kept keeps its own storage.
  func releasePools() {
    tables.removeAll()
    frames.removeAll()
  }

  /// A decoder of its own for `superDecoder()`, which may outlive this container.
  func subdecoder(at offset: Int, parent: CodingPathNode?, step: CodingStep) -> JSONDecodingState {
    JSONDecodingState(source: source, position: offset, parent: parent, step: step)
  }

  // MARK: - Values

  /// Decodes the value at `offset` as `T`; `end` is set to where the value ends when that came
  /// for free (else `-1`).
  func decodeValue<T: Decodable>(
    _ type: T.Type, at offset: Int, parent: CodingPathNode?, step: CodingStep?, end: inout Int
  ) throws -> T {
    end = -1
    // The types Foundation's JSONDecoder treats specially, in its order, then UUID, the most
    // common value in Keepsake's files, whose fast path reads only a plain 36-byte string.
    if T.self == Data.self { return cast(try decodeData(at: offset, parent, step)) }
    if T.self == Date.self { return cast(try decodeDate(at: offset, parent, step)) }
    if T.self == URL.self { return cast(try decodeURL(at: offset, parent, step)) }
    if T.self == Decimal.self { return cast(try decodeDecimal(at: offset, parent, step)) }
    if T.self == UUID.self, let uuid = uuid(at: offset) {
      end = offset + 38
      return cast(uuid)
    }
    if T.self == [String].self { return cast(try decodeStrings(at: offset, parent, step)) }
    let savedPosition = position
    let savedParent = self.parent
    let savedStep = self.step
    let savedEndStart = endStart
    let savedEndOffset = endOffset
    position = offset
    self.parent = parent
    self.step = step
    defer {
      position = savedPosition
      self.parent = savedParent
      self.step = savedStep
      endStart = savedEndStart
      endOffset = savedEndOffset
    }
    let value = try T(from: self)
    if endStart == offset { end = endOffset }
    return value
  }

  func decodeValue<T: Decodable>(
    _ type: T.Type, at offset: Int, parent: CodingPathNode?, step: CodingStep?
  ) throws -> T {
    var end = 0
    return try decodeValue(type, at: offset, parent: parent, step: step, end: &end)
  }

  /// Notes that the value at `start` ends at `end`, for the array that holds it.
  func recordEnd(of start: Int, _ end: Int) {
    endStart = start
    endOffset = end
  }

  /// `value` as `T`, which the caller checked is its own type.
  @inline(__always)
  private func cast<Value, T>(_ value: Value) -> T {
    // NB: reached only after `T.self == Value.self`, so this is a conversion to the same type;
    // `as! T` would cost a dynamic cast on every value.
    unsafeBitCast(value, to: T.self)
  }

  /// `[String]`, as `Array.init(from:)` decodes it (same errors and paths), without its generic
  /// overhead: a common field (tags, names) whose stdlib path costs more than its strings.
  private func decodeStrings(
    at offset: Int, _ parent: CodingPathNode?, _ step: CodingStep?
  ) throws -> [String] {
    guard byte(at: offset) == UInt8(ascii: "[") else {
      // The unkeyed container's own errors.
      _ = try unkeyedContainer(at: offset, parent: parent, step: step)
      return []
    }
    let base = source.base
    var strings: [String] = []
    var index = skipWhitespace(from: offset + 1)
    while base[index] != UInt8(ascii: "]") {
      let element = index
      let end = base[element] == JSONBytes.quote ? stringContentEnd(from: element) : -1
      strings.append(
        try decodeString(at: element, contentEnd: end) {
          CodingPathNode.path(parent, appending: step) + [JSONCodingKey(index: strings.count)]
        })
      index = skipWhitespace(from: end + 1)
      if base[index] == UInt8(ascii: ",") { index = skipWhitespace(from: index + 1) }
    }
    return strings
  }

  private func decodeDate(
    at offset: Int, _ parent: CodingPathNode?, _ step: CodingStep?
  ) throws -> Date {
    try checkNotNull(Date.self, at: offset, parent, step)
    // Date's own `init(from:)`: a Double, seconds since 2001-01-01.
    let seconds: Double = try decodeFloat(at: offset) {
      CodingPathNode.path(parent, appending: step)
    }
    return Date(timeIntervalSinceReferenceDate: seconds)
  }

  private func decodeData(
    at offset: Int, _ parent: CodingPathNode?, _ step: CodingStep?
  ) throws -> Data {
    try checkNotNull(Data.self, at: offset, parent, step)
    let string = try decodeString(at: offset) { CodingPathNode.path(parent, appending: step) }
    guard let data = Data(base64Encoded: string) else {
      throw DecodingError.dataCorrupted(
        .init(
          codingPath: CodingPathNode.path(parent, appending: step),
          debugDescription: "Encountered Data is not valid Base64."))
    }
    return data
  }

  private func decodeURL(
    at offset: Int, _ parent: CodingPathNode?, _ step: CodingStep?
  ) throws -> URL {
    try checkNotNull(URL.self, at: offset, parent, step)
    let string = try decodeString(at: offset) { CodingPathNode.path(parent, appending: step) }
    guard let url = URL(string: string) else {
      throw DecodingError.dataCorrupted(
        .init(
          codingPath: CodingPathNode.path(parent, appending: step),
          debugDescription: "Invalid URL string."))
    }
    return url
  }

  private func decodeDecimal(
    at offset: Int, _ parent: CodingPathNode?, _ step: CodingStep?
  ) throws -> Decimal {
    try checkNotNull(Decimal.self, at: offset, parent, step)
    guard isNumber(at: offset) else {
      throw DecodingError.typeMismatch(
        Decimal.self,
        .init(codingPath: CodingPathNode.path(parent, appending: step), debugDescription: ""))
    }
    return try foundationNumber(Decimal.self, at: offset)
  }

  private func checkNotNull<T>(
    _ type: T.Type, at offset: Int, _ parent: CodingPathNode?, _ step: CodingStep?
  ) throws {
    guard byte(at: offset) == UInt8(ascii: "n") else { return }
    throw DecodingError.valueNotFound(
      type,
      .init(
        codingPath: CodingPathNode.path(parent, appending: step),
        debugDescription: "Cannot get value of type \(type) -- found null value instead"))
  }
}
