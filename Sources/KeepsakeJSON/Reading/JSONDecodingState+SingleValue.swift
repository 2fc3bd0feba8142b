/// The decoder is its own single-value container, as in Foundation: no allocation per value.
extension JSONDecodingState: SingleValueDecodingContainer {
  func decodeNil() -> Bool { byte(at: position) == UInt8(ascii: "n") }

  func decode(_ type: Bool.Type) throws -> Bool {
    try decodeBool(at: position) { codingPath }
  }

  func decode(_ type: String.Type) throws -> String {
    try decodeString(at: position) { codingPath }
  }

  func decode(_ type: Double.Type) throws -> Double {
    try decodeFloat(at: position) { codingPath }
  }

  func decode(_ type: Float.Type) throws -> Float {
    try decodeFloat(at: position) { codingPath }
  }

  func decode(_ type: Int.Type) throws -> Int {
    try decodeInteger(at: position) { codingPath }
  }

  func decode(_ type: Int8.Type) throws -> Int8 {
    try decodeInteger(at: position) { codingPath }
  }

  func decode(_ type: Int16.Type) throws -> Int16 {
    try decodeInteger(at: position) { codingPath }
  }

  func decode(_ type: Int32.Type) throws -> Int32 {
    try decodeInteger(at: position) { codingPath }
  }

  func decode(_ type: Int64.Type) throws -> Int64 {
    try decodeInteger(at: position) { codingPath }
  }

  func decode(_ type: Int128.Type) throws -> Int128 {
    try decodeInteger(at: position) { codingPath }
  }

  func decode(_ type: UInt.Type) throws -> UInt {
    try decodeInteger(at: position) { codingPath }
  }

  func decode(_ type: UInt8.Type) throws -> UInt8 {
    try decodeInteger(at: position) { codingPath }
  }

  func decode(_ type: UInt16.Type) throws -> UInt16 {
    try decodeInteger(at: position) { codingPath }
  }

  func decode(_ type: UInt32.Type) throws -> UInt32 {
    try decodeInteger(at: position) { codingPath }
  }

  func decode(_ type: UInt64.Type) throws -> UInt64 {
    try decodeInteger(at: position) { codingPath }
  }

  func decode(_ type: UInt128.Type) throws -> UInt128 {
    try decodeInteger(at: position) { codingPath }
  }

  func decode<T: Decodable>(_ type: T.Type) throws -> T {
    try decodeValue(type, at: position, parent: parent, step: step)
  }
}
