import Foundation
@_spi(Reflection) import Swift
import Synchronization

/// Where a value of an array's element type keeps what it is, so that an element whose bytes
/// there are the same as an element kept alive since is known to be the same value.
///
/// An encoding that reuses an element's JSON must know the element did not change. `==` cannot
/// say so (it may compare only an `id`), so this compares the element's own memory with that of
/// the element encoded before, which the memo keeps alive. That is exact for a type made only of
/// values that cannot change while they are shared:
///
/// - plain data (`Int`, `Double`, `Bool`, `Date`, `UUID`, an enum without payloads, a struct of
///   these: the bytes are the value);
/// - `String`, `Substring`, `Character`, `Data` and `URL`, whose storage is never written while a
///   second value holds it (copy on write, or immutable);
/// - arrays, sets, dictionaries and optionals of such values, and structs of them.
///
/// Two such values with the same bytes have the same contents: a string or array changed since
/// got a new buffer (the memo's copy holds the old one, so its address cannot come back). A type
/// that holds a class instance, an existential, a closure or an enum with a payload that is not
/// plain data has no layout: its elements are always encoded again, since an object changed in
/// place keeps its address.
///
/// NB: the fields of a struct come from the runtime's reflection metadata (`_forEachField`); a
/// struct built without it reports no fields and so has no layout.
struct ElementLayout: Sendable {
  /// The byte ranges compared, merged where they touch.
  ///
  /// Padding between fields is left out: it is not copied with the value, and would only make
  /// equal values look different.
  let ranges: [Range<Int>]

  /// Whether the values at `left` and `right` are the same value, by their bytes.
  @inline(__always)
  func same(_ left: UnsafeRawPointer, _ right: UnsafeRawPointer) -> Bool {
    for range in ranges
    where memcmp(left + range.lowerBound, right + range.lowerBound, range.count) != 0 {
      return false
    }
    return true
  }

  /// The layout of `type`, or `nil` when its values cannot be compared by their bytes.
  static func of(_ type: Any.Type) -> ElementLayout? {
    let key = ObjectIdentifier(type)
    if let known = cache.withLock({ $0[key] }) { return known.layout }
    var ranges: [Range<Int>] = []
    var visiting: Set<ObjectIdentifier> = []
    let layout =
      collect(type, at: 0, into: &ranges, visiting: &visiting)
      ? ElementLayout(ranges: merged(ranges)) : nil
    cache.withLock { $0[key] = Known(layout: layout) }
    return layout
  }

  private struct Known: Sendable {
    let layout: ElementLayout?
  }

  /// One classification per type, for the life of the process: types do not change.
  private static let cache = Mutex<[ObjectIdentifier: Known]>([:])

  /// Types whose storage is never written while shared, compared by their whole representation.
  private static let sharedImmutable: Set<ObjectIdentifier> = [
    ObjectIdentifier(String.self), ObjectIdentifier(Substring.self),
    ObjectIdentifier(Character.self), ObjectIdentifier(Data.self), ObjectIdentifier(URL.self),
  ]

  /// Adds the ranges of `type` placed at `offset`; `false` when it has no layout.
  private static func collect(
    _ type: Any.Type, at offset: Int, into ranges: inout [Range<Int>],
    visiting: inout Set<ObjectIdentifier>
  ) -> Bool {
    let size = sizeOf(type)
    if isPlainData(type) || sharedImmutable.contains(ObjectIdentifier(type)) {
      if size > 0 { ranges.append(offset..<offset + size) }
      return true
    }
    if let collection = type as? any ValueCollection.Type {
      // NB: a type met again inside itself (a tree's `children: [Node]`) is being decided: the
      // rest of it decides.
      let key = ObjectIdentifier(type)
      guard !visiting.contains(key) else {
        ranges.append(offset..<offset + size)
        return true
      }
      visiting.insert(key)
      defer { visiting.remove(key) }
      for element in collection.elementTypes {
        var ignored: [Range<Int>] = []
        guard collect(element, at: 0, into: &ignored, visiting: &visiting) else { return false }
      }
      ranges.append(offset..<offset + size)
      return true
    }
    guard kind(of: type) == .struct else { return false }
    var fields = 0
    let complete = _forEachField(of: type, options: []) { _, fieldOffset, fieldType, _ in
      fields += 1
      return collect(fieldType, at: offset + fieldOffset, into: &ranges, visiting: &visiting)
    }
    // A struct with storage but no reflected fields was built without reflection metadata.
    return complete && (fields > 0 || size == 0)
  }

  private static func sizeOf(_ type: Any.Type) -> Int {
    func size<T>(_: T.Type) -> Int { MemoryLayout<T>.size }
    return _openExistential(type, do: size)
  }

  private static func isPlainData(_ type: Any.Type) -> Bool {
    func plain<T>(_: T.Type) -> Bool { _isPOD(T.self) }
    return _openExistential(type, do: plain)
  }

  /// The runtime's kind of `type`, read as the kind of a field holding it.
  private static func kind(of type: Any.Type) -> _MetadataKind {
    func kind<T>(_: T.Type) -> _MetadataKind {
      var found = _MetadataKind.unknown
      _ = _forEachField(of: Holder<T>.self, options: []) { _, _, _, fieldKind in
        found = fieldKind
        return false
      }
      return found
    }
    return _openExistential(type, do: kind)
  }

  private struct Holder<T> {
    var value: T
  }

  private static func merged(_ ranges: [Range<Int>]) -> [Range<Int>] {
    var result: [Range<Int>] = []
    for range in ranges.sorted(by: { $0.lowerBound < $1.lowerBound }) {
      if let last = result.last, last.upperBound >= range.lowerBound {
        result[result.count - 1] = last.lowerBound..<max(last.upperBound, range.upperBound)
      } else {
        result.append(range)
      }
    }
    return result
  }
}

/// A standard collection (or optional) of values: it holds values of its element types only,
/// and copies its storage before writing to it while another value shares it.
private protocol ValueCollection {
  static var elementTypes: [Any.Type] { get }
}

extension Optional: ValueCollection {
  static var elementTypes: [Any.Type] { [Wrapped.self] }
}

extension Array: ValueCollection {
  static var elementTypes: [Any.Type] { [Element.self] }
}

extension ContiguousArray: ValueCollection {
  static var elementTypes: [Any.Type] { [Element.self] }
}

extension Set: ValueCollection {
  static var elementTypes: [Any.Type] { [Element.self] }
}

extension Dictionary: ValueCollection {
  static var elementTypes: [Any.Type] { [Key.self, Value.self] }
}
