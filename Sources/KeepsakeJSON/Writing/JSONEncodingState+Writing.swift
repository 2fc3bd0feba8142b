import Foundation

/// Writing values as Foundation's `JSONEncoder` spells them, and closing objects with their keys
/// sorted as `.sortedKeys` sorts them.
extension JSONEncodingState {
  // MARK: - Scalars

  func writeNull() { output.append(contentsOf: [0x6E, 0x75, 0x6C, 0x6C]) }

  func writeBool(_ value: Bool) {
    if value {
      output.append(contentsOf: [0x74, 0x72, 0x75, 0x65])
    } else {
      output.append(contentsOf: [0x66, 0x61, 0x6C, 0x73, 0x65])
    }
  }

  func writeInteger<T: FixedWidthInteger>(_ value: T) { output.appendInteger(value) }

  /// Writes a Float or Double as Foundation does: its shortest description, without `.0`.
  ///
  /// - Throws: `EncodingError.invalidValue` for NaN and infinities (Foundation's default
  ///   non-conforming float strategy), naming the value's coding path.
  func writeFloat<T: BinaryFloatingPoint & CustomStringConvertible>(
    _ value: T, step: @autoclosure () -> CodingStep?
  ) throws {
    guard value.isFinite else {
      var path = codingPath
      if let step = step() { path.append(step.codingKey) }
      throw EncodingError.invalidValue(
        value,
        .init(
          codingPath: path,
          debugDescription: "Unable to encode \(T.self).\(value) directly in JSON."
        ))
    }
    // NB: a Double's description is plain digits and `.0` for every integer below 2^53 (from
    // 1e16 it switches to `1e+16`), so those skip the description. Not Float: `1e+10`.
    if T.self == Double.self, value == value.rounded(.towardZero), value.magnitude < 0x1p53,
      !(value == 0 && value.sign == .minus)
    {
      return writeInteger(Int64(value))
    }
    var text = value.description
    if text.hasSuffix(".0") { text.removeLast(2) }
    output.append(contentsOf: text)
  }

  func writeUUID(_ uuid: UUID) {
    let hex: StaticString = "0123456789ABCDEF"
    withUnsafeBytes(of: uuid.uuid) { bytes in
      output.append(JSONBytes.quote)
      for (index, byte) in bytes.enumerated() {
        if index == 4 || index == 6 || index == 8 || index == 10 {
          output.append(UInt8(ascii: "-"))
        }
        output.append(hex.utf8Start[Int(byte >> 4)])
        output.append(hex.utf8Start[Int(byte & 0x0F)])
      }
      output.append(JSONBytes.quote)
    }
  }

  // MARK: - Strings

  func writeString(_ string: String) {
    output.append(JSONBytes.quote)
    writeEscaped(string)
    output.append(JSONBytes.quote)
  }

  /// Writes a key's text; returns whether it is plain (ASCII, nothing escaped).
  private func writeKey(_ name: String) -> Bool {
    func write(_ utf8: UnsafeBufferPointer<UInt8>) -> Bool {
      let isASCII = utf8.baseAddress.map { JSONBytes.isASCII($0, from: 0, to: utf8.count) } ?? true
      return !writeEscaped(utf8) && isASCII
    }
    if let isPlain = name.utf8.withContiguousStorageIfAvailable(write) { return isPlain }
    var copy = name
    return copy.withUTF8(write)
  }

  /// Writes `string`'s UTF-8 escaped as Foundation escapes it (``JSONOutput/appendEscaped(_:escapingSlash:)``,
  /// `/` included).
  /// - Returns: Whether any byte needed escaping.
  @discardableResult
  func writeEscaped(_ string: String) -> Bool {
    if let escaped = string.utf8.withContiguousStorageIfAvailable({ writeEscaped($0) }) {
      return escaped
    }
    var copy = string
    return copy.withUTF8 { writeEscaped($0) }
  }

  private func writeEscaped(_ utf8: UnsafeBufferPointer<UInt8>) -> Bool {
    output.appendEscaped(utf8, escapingSlash: true)
  }

  // MARK: - Members

  /// Writes the separator and `"key":` of a new member of the object `frame`.
  func beginMember(in frame: Int, key: some CodingKey) -> Member {
    if frames[frame].count > 0 { output.append(UInt8(ascii: ",")) }
    let start = output.count
    let name = key.stringValue
    output.append(JSONBytes.quote)
    let isPlain = writeKey(name)
    output.append(JSONBytes.quote)
    output.append(UInt8(ascii: ":"))
    return Member(
      start: start, valueStart: output.count, end: -1, key: isPlain ? nil : name,
      isContainer: false)
  }

  func endMember(_ member: Member, in frame: Int) {
    var member = member
    member.end = output.count
    members.append(member)
    frames[frame].count += 1
  }

  /// Closes an object: its members in the order `.sortedKeys` gives (by the UTF-8 bytes of the
  /// keys), each key once.
  ///
  /// NB: Foundation keeps an object's members in a `[String: value]` dictionary, so a key
  /// encoded twice keeps its first spelling and its last value, and keys that are equal as Swift
  /// strings (`"é"` precomposed or not) are the same key. The common case (plain ASCII keys,
  /// already in order) costs one comparison per member; otherwise the members are copied aside
  /// and written back in order.
  func closeObject(_ frame: Frame) {
    let base = frame.memberBase
    if members.count - base >= 2, !membersAreSortedAndPlain(from: base) {
      rewriteSorted(from: base)
    }
    // NB: one at a time: `removeSubrange` went through the generic `replaceSubrange`, costly
    // for the one member of a small struct.
    while members.count > base { members.removeLast() }
    output.append(UInt8(ascii: "}"))
  }

  private func membersAreSortedAndPlain(from base: Int) -> Bool {
    guard members[base].key == nil else { return false }
    for index in (base + 1)..<members.count {
      guard members[index].key == nil, compareKeys(members[index - 1], members[index]) < 0
      else { return false }
    }
    return true
  }

  private func rewriteSorted(from base: Int) {
    // Group duplicate keys: the first member gives the key, the last the value.
    var groups: [(key: Int, value: Int)] = []
    groups.reserveCapacity(members.count - base)
    var byName: [String: Int]?
    if members.count - base > 16 { byName = [:] }
    for index in base..<members.count {
      var existing: Int?
      if byName != nil {
        existing = byName?[keyString(members[index])]
      } else {
        existing = groups.firstIndex { keysEqual(members[$0.key], members[index]) }
      }
      if let existing {
        // A nested container for a key already written: Foundation goes on writing into what the
        // key holds (or stops, if that is not an object), which one pass cannot do. A value
        // written over a key simply replaces it.
        if members[index].isContainer {
          needsFoundation = true
          return
        }
        groups[existing].value = index
      } else {
        byName?[keyString(members[index])] = groups.count
        groups.append((index, index))
      }
    }
    if groups.allSatisfy({ members[$0.key].key == nil }) {
      groups.sort { compareKeys(members[$0.key], members[$1.key]) < 0 }
    } else {
      let sortKeys = groups.map { Array(keyString(members[$0.key]).utf8) }
      let order = sortKeys.indices.sorted { sortKeys[$0].lexicographicallyPrecedes(sortKeys[$1]) }
      groups = order.map { groups[$0] }
    }
    let regionStart = members[base].start
    scratch.removeAll(keepingCapacity: true)
    scratch.append(contentsOf: output.bytes(from: regionStart, to: output.count))
    output.truncate(to: regionStart)
    scratch.withUnsafeBufferPointer { saved in
      for (position, group) in groups.enumerated() {
        if position > 0 { output.append(UInt8(ascii: ",")) }
        let key = members[group.key]
        let value = members[group.value]
        output.append(
          contentsOf: UnsafeBufferPointer(
            rebasing: saved[(key.start - regionStart)..<(key.valueStart - regionStart)]))
        output.append(
          contentsOf: UnsafeBufferPointer(
            rebasing: saved[(value.valueStart - regionStart)..<(value.end - regionStart)]))
      }
    }
  }

  /// Compares the keys of two plain members (ASCII, unescaped) by their bytes in the output.
  private func compareKeys(_ left: Member, _ right: Member) -> Int {
    let leftCount = left.valueStart - 2 - (left.start + 1)
    let rightCount = right.valueStart - 2 - (right.start + 1)
    let order = memcmp(
      output.pointer(at: left.start + 1), output.pointer(at: right.start + 1),
      min(leftCount, rightCount))
    if order != 0 { return Int(order) }
    return leftCount - rightCount
  }

  private func keysEqual(_ left: Member, _ right: Member) -> Bool {
    if left.key == nil, right.key == nil { return compareKeys(left, right) == 0 }
    return keyString(left) == keyString(right)
  }

  private func keyString(_ member: Member) -> String {
    if let key = member.key { return key }
    return String(
      decoding: output.bytes(from: member.start + 1, to: member.valueStart - 2), as: UTF8.self)
  }
}
