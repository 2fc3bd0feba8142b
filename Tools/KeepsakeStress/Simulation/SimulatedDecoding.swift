import Foundation

/// Reads the simulation's files without Keepsake (with Foundation's `JSONSerialization`, and a
/// recogniser of the one compact form most writes have): what the checker and the outside
/// writers take the bytes to mean.
enum SimulatedDecoding {
  /// The names the bytes of `file` hold, `[]` for no file, or `nil` when they cannot be read
  /// (empty, cut short, another shape, a version from the future).
  static func names(in data: Data?, of file: SimulatedFile) -> [String]? {
    guard let data else { return [] }
    return canonical(data, of: file) ?? parsed(data, of: file)
  }

  /// The fields the items of `data` hold, by item: `[:]` for no file, a file without fields,
  /// or bytes that cannot be read (their names tell that).
  static func fields(in data: Data?, of file: SimulatedFile) -> [String: [String: String]] {
    guard file == .items, let data, canonical(data, of: file) == nil,
      let elements = try? JSONSerialization.jsonObject(with: data) as? [[String: Any]]
    else { return [:] }
    var fields: [String: [String: String]] = [:]
    for element in elements {
      guard let id = element["id"] as? String else { continue }
      var members: [String: String] = [:]
      for (key, value) in element where key != "id" {
        if let value = value as? String { members[key] = value }
      }
      if !members.isEmpty { fields[id] = members }
    }
    return fields
  }

  /// The names `JSONSerialization` reads in `data`, or `nil`.
  static func parsed(_ data: Data, of file: SimulatedFile) -> [String]? {
    guard !data.isEmpty,
      let object = try? JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed])
    else { return nil }
    switch file {
    case .items:
      guard let elements = object as? [Any] else { return nil }
      var names: [String] = []
      names.reserveCapacity(elements.count)
      for element in elements {
        guard let fields = element as? [String: Any], let id = fields["id"] as? String else {
          return nil
        }
        names.append(id)
      }
      return names
    case .notes:
      guard let envelope = object as? [String: Any], envelope.count == 2,
        let version = envelope["version"] as? Int, version == 1,
        let content = envelope["content"] as? [Any]
      else { return nil }
      var names: [String] = []
      for element in content {
        guard let name = element as? String else { return nil }
        names.append(name)
      }
      return names
    }
  }

  /// The names in the compact form Keepsake (and most outside edits) write, read without a
  /// JSON parser; `nil` for bytes in any other form, which `JSONSerialization` then reads.
  ///
  /// NB: a recogniser of one exact form, so it can only agree with the parser: the names are
  /// made of letters, digits, `.` and `-`, which JSON strings hold as they are.
  static func canonical(_ data: Data, of file: SimulatedFile) -> [String]? {
    let (open, before, after, close): (String, String, String, String) =
      switch file {
      case .items: ("[", "{\"id\":\"", "\"}", "]")
      case .notes: ("{\"content\":[", "\"", "\"", "],\"version\":1}")
      }
    return data.withUnsafeBytes { raw -> [String]? in
      let bytes = raw.bindMemory(to: UInt8.self)
      var index = 0
      func take(_ text: String) -> Bool {
        for byte in text.utf8 {
          guard index < bytes.count, bytes[index] == byte else { return false }
          index += 1
        }
        return true
      }
      guard take(open) else { return nil }
      var names: [String] = []
      if take(close) { return index == bytes.count ? names : nil }
      while true {
        guard take(before) else { return nil }
        let start = index
        while index < bytes.count, isNameByte(bytes[index]) { index += 1 }
        guard index > start else { return nil }
        names.append(
          String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self))
        guard take(after) else { return nil }
        if take(",") { continue }
        guard take(close), index == bytes.count else { return nil }
        return names
      }
    }
  }

  private static func isNameByte(_ byte: UInt8) -> Bool {
    switch byte {
    case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
      UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "."), UInt8(ascii: "-"):
      true
    default:
      false
    }
  }
}
