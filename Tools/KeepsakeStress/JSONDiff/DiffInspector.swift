import Foundation

/// Decodes any document by asking its decoder nearly everything a type can ask, and writes down
/// every answer: keys, counts, each primitive type tried on each value (with its error, coding
/// path and message when it fails), missing keys, the end of arrays, `superDecoder()`.
///
/// Two decoders that agree on this log agree on what a `Decodable` type can observe. It never
/// throws, so an array always moves on after decoding one.
struct DiffInspector: Decodable, Equatable {
  var log: [String]

  init(from decoder: any Decoder) throws {
    var log = ["at \(Self.render(decoder.codingPath))"]
    // NB: below a few levels only the shape is noted, so an inspection stays linear in the size
    // of the document (each value is otherwise inspected again by every container above it).
    guard decoder.codingPath.count < 6 else {
      log.append(Self.attempt { try decoder.singleValueContainer().decodeNil() })
      log.append(Self.attempt { try decoder.container(keyedBy: DiffAnyKey.self).allKeys.count })
      log.append(Self.attempt { try decoder.unkeyedContainer().count })
      self.log = log
      return
    }
    Self.inspectKeyed(decoder, into: &log)
    Self.inspectUnkeyed(decoder, into: &log)
    Self.inspectSingle(decoder, into: &log)
    self.log = log
  }

  private static func inspectKeyed(_ decoder: any Decoder, into log: inout [String]) {
    let keyed: KeyedDecodingContainer<DiffAnyKey>
    do {
      keyed = try decoder.container(keyedBy: DiffAnyKey.self)
    } catch {
      log.append("keyed: \(describe(error))")
      return
    }
    // NB: Foundation lists keys in its dictionary's (random) order; the set is what must agree.
    let keys = keyed.allKeys.map(\.stringValue).sorted()
    log.append("keys \(keys.map(\.debugDescription))")
    for name in keys.prefix(32) {
      let key = DiffAnyKey(stringValue: name)
      log.append("contains \(keyed.contains(key))")
      log.append(attempt { try keyed.decodeNil(forKey: key) })
      log.append(attempt { try keyed.decode(Bool.self, forKey: key) })
      log.append(attempt { try keyed.decode(String.self, forKey: key) })
      log.append(attempt { try keyed.decode(Int.self, forKey: key) })
      log.append(attempt { try keyed.decode(Int8.self, forKey: key) })
      log.append(attempt { try keyed.decode(UInt64.self, forKey: key) })
      log.append(attempt { try keyed.decode(Double.self, forKey: key) })
      log.append(attempt { try keyed.decode(Float.self, forKey: key) })
      log.append(attempt { try keyed.decode(UUID.self, forKey: key) })
      log.append(attempt { try keyed.decode(Date.self, forKey: key) })
      log.append(attempt { try keyed.decodeIfPresent(Data.self, forKey: key) })
      log.append(attempt { try keyed.decodeIfPresent(URL.self, forKey: key) })
      log.append(attempt { try keyed.decodeIfPresent(Decimal.self, forKey: key) })
      log.append(attempt { try keyed.decodeIfPresent(String.self, forKey: key) })
      log.append(attempt { try keyed.decodeIfPresent(Int.self, forKey: key) })
      log.append(attempt { try keyed.decodeIfPresent(Bool.self, forKey: key) })
      log.append(attempt { try keyed.decode([String].self, forKey: key) })
      log.append(
        attempt { try keyed.decode([String: Int].self, forKey: key).sorted { $0.key < $1.key } })
      log.append(
        attempt { try keyed.nestedContainer(keyedBy: DiffAnyKey.self, forKey: key).allKeys.count })
      log.append(attempt { try keyed.nestedUnkeyedContainer(forKey: key).count })
      log.append(attempt { try keyed.decode(DiffInspector.self, forKey: key) })
    }
    let missing = DiffAnyKey(stringValue: "no such key")
    log.append(attempt { try keyed.decode(Int.self, forKey: missing) })
    log.append(attempt { try keyed.decodeNil(forKey: missing) })
    log.append(attempt { try keyed.decodeIfPresent(String.self, forKey: missing) })
    log.append(attempt { try keyed.decode(DiffItem.self, forKey: missing) })
    log.append(
      attempt {
        try keyed.nestedContainer(keyedBy: DiffAnyKey.self, forKey: missing).codingPath.count
      })
    log.append(attempt { try keyed.nestedUnkeyedContainer(forKey: missing).count })
    log.append(
      attempt { try keyed.superDecoder(forKey: missing).singleValueContainer().decode(Int.self) })
    log.append(attempt { try render(keyed.superDecoder().codingPath) })
    log.append(attempt { try keyed.superDecoder().singleValueContainer().decodeNil() })
  }

  private static func inspectUnkeyed(_ decoder: any Decoder, into log: inout [String]) {
    var unkeyed: any UnkeyedDecodingContainer
    do {
      unkeyed = try decoder.unkeyedContainer()
    } catch {
      log.append("unkeyed: \(describe(error))")
      return
    }
    log.append("count \(unkeyed.count.map(String.init) ?? "nil") at \(render(unkeyed.codingPath))")
    var step = 0
    while !unkeyed.isAtEnd, step < 48 {
      let before = unkeyed.currentIndex
      switch step % 9 {
      case 0: log.append(attempt { try unkeyed.decodeNil() })
      case 1: log.append(attempt { try unkeyed.decode(Int.self) })
      case 2: log.append(attempt { try unkeyed.decode(String.self) })
      case 3: log.append(attempt { try unkeyed.decodeIfPresent(Double.self) })
      case 4: log.append(attempt { try unkeyed.decode(Bool.self) })
      case 5: log.append(attempt { try unkeyed.nestedUnkeyedContainer().count })
      case 6:
        log.append(attempt { try unkeyed.nestedContainer(keyedBy: DiffAnyKey.self).allKeys.count })
      case 7: log.append(attempt { try render(unkeyed.superDecoder().codingPath) })
      default: log.append(attempt { try unkeyed.decode(UUID.self) })
      }
      if unkeyed.currentIndex == before, !unkeyed.isAtEnd {
        log.append(attempt { try unkeyed.decode(DiffInspector.self) })
      }
      step += 1
    }
    log.append("end \(unkeyed.isAtEnd) at index \(unkeyed.currentIndex)")
    if unkeyed.isAtEnd {
      log.append(attempt { try unkeyed.decode(Int.self) })
      log.append(attempt { try unkeyed.decodeNil() })
      log.append(attempt { try unkeyed.decodeIfPresent(String.self) })
      log.append(attempt { try unkeyed.nestedContainer(keyedBy: DiffAnyKey.self).allKeys.count })
      log.append(attempt { try unkeyed.nestedUnkeyedContainer().count })
      log.append(attempt { try render(unkeyed.superDecoder().codingPath) })
      log.append("index after the end \(unkeyed.currentIndex)")
    }
  }

  private static func inspectSingle(_ decoder: any Decoder, into log: inout [String]) {
    let single: any SingleValueDecodingContainer
    do {
      single = try decoder.singleValueContainer()
    } catch {
      log.append("single: \(describe(error))")
      return
    }
    log.append("nil \(single.decodeNil())")
    log.append(attempt { try single.decode(Bool.self) })
    log.append(attempt { try single.decode(String.self) })
    log.append(attempt { try single.decode(Int.self) })
    log.append(attempt { try single.decode(Int8.self) })
    log.append(attempt { try single.decode(UInt8.self) })
    log.append(attempt { try single.decode(Int64.self) })
    log.append(attempt { try single.decode(UInt.self) })
    log.append(attempt { try single.decode(Double.self) })
    log.append(attempt { try single.decode(Float.self) })
    log.append(attempt { try single.decode(UUID.self) })
    log.append(attempt { try single.decode(Date.self) })
    log.append(attempt { try single.decode(Data.self) })
    log.append(attempt { try single.decode(URL.self) })
    log.append(attempt { try single.decode(Decimal.self) })
    log.append(attempt { try single.decode(DiffKind.self) })
    log.append(attempt { try single.decode(DiffLevel.self) })
  }

  // MARK: - Rendering

  /// `ok <value>` or `error <case, type, path, message>`.
  static func attempt<T>(_ body: () throws -> T) -> String {
    do {
      return "ok \(render(try body()))"
    } catch {
      return "error \(describe(error))"
    }
  }

  static func render<T>(_ value: T) -> String {
    switch value {
    case let string as String: string.debugDescription
    case let date as Date: "date \(date.timeIntervalSinceReferenceDate)"
    case let data as Data: "data \(data.base64EncodedString())"
    case let url as URL: "url \(url.absoluteString)"
    case let uuid as UUID: "uuid \(uuid.uuidString)"
    case let keys as [any CodingKey]: renderPath(keys)
    // Nested logs as they are: quoting them again at every level would grow exponentially.
    case let inspection as DiffInspector: "{ " + inspection.log.joined(separator: " | ") + " }"
    default: String(describing: value)
    }
  }

  /// A coding path with each key's string and integer value, so `Index 3` and a key `3` differ.
  ///
  /// NB: not `JSONPathComponent.render(codingPath:)`, the renderer of Keepsake's messages, on
  /// purpose: that one reads as Swift (`tracks[3]`) and so cannot show the two codecs making
  /// different keys for the same place.
  static func renderPath(_ path: [any CodingKey]) -> String {
    "["
      + path.map { "\($0.stringValue.debugDescription)#\($0.intValue.map(String.init) ?? "-")" }
      .joined(separator: ", ") + "]"
  }

  /// A decoding error as case, type, path and message; any other error by its kind only (the
  /// "not valid JSON" errors Foundation and Keepsake's codec raise deep inside are internal
  /// types of each, surfacing as `DecodingError.dataCorrupted` at the top).
  static func describe(_ error: any Error) -> String {
    guard let error = error as? DecodingError else { return "not a DecodingError" }
    switch error {
    case .typeMismatch(let type, let context):
      return "typeMismatch(\(type)) \(renderPath(context.codingPath)) \(context.debugDescription)"
    case .valueNotFound(let type, let context):
      return "valueNotFound(\(type)) \(renderPath(context.codingPath)) \(context.debugDescription)"
    case .keyNotFound(let key, let context):
      return
        "keyNotFound(\(key.stringValue.debugDescription)) \(renderPath(context.codingPath)) "
        + context.debugDescription
    case .dataCorrupted(let context):
      return "dataCorrupted \(renderPath(context.codingPath)) \(context.debugDescription)"
    @unknown default:
      return "unknown \(error)"
    }
  }
}
