import Foundation
import Keepsake

/// Renders any value as readable, indented text, one field per line, for diffs in test
/// failures.
///
/// Structs and classes render as `Type(label: value, ...)`, enums as `Type.case(payload)`,
/// collections with their indices, optionals as their value or `nil`, and a `Shared` or a
/// `SharedReader` as its current value with its key as the app writes it,
/// `Shared(.inMemory("drafts")) [...]` (swift-sharing's `CustomDumpRepresentable` renders a
/// `Shared` as its value too). The rendering is stable
/// (sets and dictionaries are sorted), so two values are equal for a test when their renderings
/// are.
///
/// ```swift
/// print(ValueDump.render(Draft(id: id, text: "Hi")))
/// // Draft(
/// //   id: 00000000-0000-0000-0000-000000000000,
/// //   text: "Hi"
/// // )
/// ```
///
/// Nonisolated; a `Shared` value is read as any read of it would be (inside a test store's
/// assertion closure, its expected value).
public enum ValueDump {
  /// The rendering of `value`.
  public static func render(_ value: Any) -> String {
    var renderer = Renderer()
    return renderer.lines(value).joined(separator: "\n")
  }

  /// The rendering of `value` and the keys of the `Shared` values found in it.
  static func renderTracingShared(_ value: Any) -> (text: String, sharedKeys: Set<SharedKeyID>) {
    var renderer = Renderer()
    let text = renderer.lines(value).joined(separator: "\n")
    return (text, renderer.sharedKeys)
  }

  private struct Renderer {
    var sharedKeys: Set<SharedKeyID> = []
    var visiting: Set<ObjectIdentifier> = []

    mutating func lines(_ value: Any) -> [String] {
      if let shared = value as? any SharedDumpable {
        sharedKeys.insert(shared.dumpKeyID)
        return prefixed("\(shared.dumpKind)(\(shared.dumpKey)) ", lines(shared.dumpValue))
      }
      if let leaf = Self.leaf(value) { return [leaf] }
      let mirror = Mirror(reflecting: value)
      let name = ValueDump.typeName(type(of: value))
      switch mirror.displayStyle {
      case .optional:
        guard let wrapped = mirror.children.first else { return ["nil"] }
        return lines(wrapped.value)
      case .enum:
        return enumLines(value, mirror: mirror, name: name)
      case .struct:
        return block(name + "(", fields(mirror), ")")
      case .class:
        let id = ObjectIdentifier(value as AnyObject)
        guard !visiting.contains(id) else { return ["\(name)(↩︎)"] }
        visiting.insert(id)
        defer { visiting.remove(id) }
        return block(name + "(", fields(mirror), ")")
      case .tuple:
        return block("(", fields(mirror), ")")
      case .collection:
        var index = 0
        var items: [[String]] = []
        for child in mirror.children {
          items.append(prefixed("[\(index)]: ", lines(child.value)))
          index += 1
        }
        return block("[", items, "]")
      case .set:
        let items = mirror.children.map { lines($0.value) }
          .sorted { $0.joined(separator: "\n") < $1.joined(separator: "\n") }
        return block("Set([", items, "])")
      case .dictionary:
        let items = mirror.children.map { pair -> [String] in
          let parts = Array(Mirror(reflecting: pair.value).children)
          guard parts.count == 2 else { return lines(pair.value) }
          let key = lines(parts[0].value).joined(separator: " ")
          return prefixed(key + ": ", lines(parts[1].value))
        }
        .sorted { $0.joined(separator: "\n") < $1.joined(separator: "\n") }
        return items.isEmpty ? ["[:]"] : block("[", items, "]")
      default:
        return [String(describing: value)]
      }
    }

    private mutating func enumLines(_ value: Any, mirror: Mirror, name: String) -> [String] {
      guard let payload = mirror.children.first, let caseName = payload.label else {
        return ["\(name).\(value)"]
      }
      let payloadMirror = Mirror(reflecting: payload.value)
      let items: [[String]]
      if payloadMirror.displayStyle == .tuple {
        items = fields(payloadMirror)
      } else {
        items = [lines(payload.value)]
      }
      // A single one-line payload stays on the case's line: `Action.discarded(42)`.
      if items.count == 1, items[0].count == 1 {
        return ["\(name).\(caseName)(\(items[0][0]))"]
      }
      return block("\(name).\(caseName)(", items, ")")
    }

    private mutating func fields(_ mirror: Mirror) -> [[String]] {
      mirror.children.enumerated().map { offset, child in
        var label = child.label ?? ".\(offset)"
        // A property wrapper is stored as `_name`; show the name the code uses.
        if child.value is any SharedDumpable, label.hasPrefix("_") { label.removeFirst() }
        if label.hasPrefix(".") { return lines(child.value) }
        return prefixed(label + ": ", lines(child.value))
      }
    }

    private func prefixed(_ prefix: String, _ lines: [String]) -> [String] {
      guard let first = lines.first else { return [prefix] }
      return [prefix + first] + lines.dropFirst()
    }

    private func block(_ open: String, _ items: [[String]], _ close: String) -> [String] {
      guard !items.isEmpty else { return [open + close] }
      var result = [open]
      for (index, item) in items.enumerated() {
        let comma = index < items.count - 1 ? "," : ""
        for (lineIndex, line) in item.enumerated() {
          result.append("  " + line + (lineIndex == item.count - 1 ? comma : ""))
        }
      }
      result.append(close)
      return result
    }

    /// A rendering on one line for values whose reflection says nothing useful.
    private static func leaf(_ value: Any) -> String? {
      switch value {
      case let string as String: return String(reflecting: string)
      case let string as Substring: return String(reflecting: String(string))
      case let character as Character: return String(reflecting: character)
      case let uuid as UUID: return uuid.uuidString
      case let date as Date: return "Date(\(date.timeIntervalSince1970))"
      case let url as URL: return "URL(\(url.absoluteString))"
      case let decimal as Decimal: return decimal.description
      case let error as any Error where Mirror(reflecting: value).displayStyle == nil:
        return String(describing: error)
      case let value as any LosslessStringConvertible: return value.description
      default: return nil
      }
    }
  }

  /// `Module.Outer.Inner<Swift.Int>` without module names: `Outer.Inner<Int>`.
  static func typeName(_ type: Any.Type) -> String {
    var name = String(reflecting: type)
    // NB: a local type reflects as `Module.(unknown context at $1234).Name`.
    while let range = name.range(
      of: #"\(unknown context at \$[0-9a-f]+\)\."#, options: .regularExpression)
    {
      name.removeSubrange(range)
    }
    let pattern = #"(?<![A-Za-z0-9_.])[A-Za-z_][A-Za-z0-9_]*\.(?=[A-Za-z_])"#
    guard let regex = try? NSRegularExpression(pattern: pattern) else { return name }
    return regex.stringByReplacingMatches(
      in: name, range: NSRange(name.startIndex..., in: name), withTemplate: "")
  }
}

/// A `Shared` or `SharedReader` value, as ``ValueDump`` renders it.
protocol SharedDumpable {
  /// `Shared` or `SharedReader`.
  var dumpKind: String { get }
  /// The identity of the key, for the keys a rendering reaches.
  var dumpKeyID: SharedKeyID { get }
  /// The key as the app writes it, with the part for a projection: `.inMemory("drafts")`.
  var dumpKey: String { get }
  var dumpValue: Any { get }
}

extension Shared: SharedDumpable {
  var dumpKind: String { "Shared" }
  var dumpKeyID: SharedKeyID { keyID }
  var dumpKey: String { keyDescription }
  var dumpValue: Any { wrappedValue }
}

extension SharedReader: SharedDumpable {
  var dumpKind: String { "SharedReader" }
  var dumpKeyID: SharedKeyID { keyID }
  var dumpKey: String { keyDescription }
  var dumpValue: Any { wrappedValue }
}
