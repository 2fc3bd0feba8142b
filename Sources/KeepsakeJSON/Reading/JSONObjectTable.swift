import Foundation

/// The members of one JSON object, found once when it is opened as a keyed container.
///
/// NB: Foundation builds a `[String: value]` dictionary for every object it decodes, which is
/// most of its decoding time on a file of small objects. This table keeps each key as a range of
/// bytes and finds a member by comparing bytes, in document order; only objects with more than
/// 16 members get a dictionary (for `[String: Value]` models, whose keys are looked up one by one).
/// The results are Foundation's:
/// - the first of duplicate keys wins;
/// - keys compare as Swift strings (canonical equivalence: `"\u{212A}"`, the Kelvin sign, is the
///   key `K`), so bytes are compared only when both keys are ASCII;
/// - every key is checked (escapes, UTF-8) when the object is opened, even keys nobody asks for.
final class JSONObjectTable: CodingPathNode {
  struct Member {
    /// The key's text between its quotes.
    var keyStart: Int
    var keyEnd: Int
    /// The key as a string when it is not plain ASCII (escapes or other characters), else `nil`.
    var key: String?
    var valueStart: Int
    var valueEnd: Int
  }

  let state: JSONDecodingState
  @exclusivity(unchecked) private(set) var members: [Member] = []
  @exclusivity(unchecked) private var index: [String: Int]?

  init(state: JSONDecodingState) {
    self.state = state
    super.init(parent: nil, step: nil)
    members.reserveCapacity(8)
  }

  /// Reads the members of the object whose `{` is at `offset`, forgetting any previous object.
  func read(object offset: Int, parent: CodingPathNode?, step: CodingStep?) throws(JSONLazyError) {
    self.parent = parent
    self.step = step
    index = nil
    // NB: one at a time: `removeAll(keepingCapacity:)` went through the generic
    // `replaceSubrange`, costly for an object of one member.
    while !members.isEmpty { members.removeLast() }
    let base = state.source.base
    var position = state.skipWhitespace(from: offset + 1)
    if base[position] != UInt8(ascii: "}") {
      while true {
        let keyStart = position + 1
        let keyEnd = state.stringContentEnd(from: position)
        var key: String?
        if JSONBytes.needsUnescaping(base, from: keyStart, to: keyEnd)
          || !JSONBytes.isASCII(base, from: keyStart, to: keyEnd)
        {
          key = try state.string(from: keyStart, to: keyEnd)
        }
        // The scanner checked the colon is there.
        let valueStart = state.skipWhitespace(from: state.skipWhitespace(from: keyEnd + 1) + 1)
        let valueEnd = state.skipValue(from: valueStart)
        members.append(
          Member(
            keyStart: keyStart, keyEnd: keyEnd, key: key, valueStart: valueStart,
            valueEnd: valueEnd))
        position = state.skipWhitespace(from: valueEnd)
        guard base[position] == UInt8(ascii: ",") else { break }
        position = state.skipWhitespace(from: position + 1)
        // A trailing comma.
        if base[position] == UInt8(ascii: "}") { break }
      }
    }
    state.recordEnd(of: offset, position + 1)
  }

  /// The first member whose key equals `name`.
  func member(named name: String) -> Member? {
    if members.count > 16 {
      let index = self.index ?? makeIndex()
      return index[name].map { members[$0] }
    }
    let base = state.source.base
    let found: Member?? = name.utf8.withContiguousStorageIfAvailable { utf8 -> Member? in
      var nameIsASCII = true
      for byte in utf8 where byte >= 0x80 {
        nameIsASCII = false
        break
      }
      for member in members {
        if let key = member.key {
          if key == name { return member }
        } else if nameIsASCII {
          let length = member.keyEnd - member.keyStart
          if length == utf8.count, let nameBase = utf8.baseAddress,
            length == 0 || memcmp(base + member.keyStart, nameBase, length) == 0
          {
            return member
          }
        } else if plainKey(member) == name {
          return member
        }
      }
      return nil
    }
    if let found { return found }
    return members.first { ($0.key ?? plainKey($0)) == name }
  }

  /// The keys, each once, in the order Foundation's `allKeys` lists them.
  ///
  /// NB: Foundation's `allKeys` is the order of a `[String: value]` dictionary reserved for the
  /// object's member count and filled in document order (the first of equal keys wins). That
  /// order is not the document's, and it changes from process to process (string hashing is
  /// seeded at launch), but a dictionary built the same way in the same process iterates in the
  /// same order. `[String: Value]` models decode in this order, so a file with two bad values
  /// reports the same one as Foundation.
  func keys() -> [String] {
    Array((index ?? makeIndex()).keys)
  }

  private func plainKey(_ member: Member) -> String {
    String(
      decoding: UnsafeBufferPointer(
        start: state.source.base + member.keyStart, count: member.keyEnd - member.keyStart),
      as: UTF8.self)
  }

  private func makeIndex() -> [String: Int] {
    var index: [String: Int] = [:]
    index.reserveCapacity(members.count)
    // See `keys()`: the same capacity and insertions as Foundation's dictionary.
    for (position, member) in members.enumerated() {
      let key = member.key ?? plainKey(member)
      if index[key] == nil { index[key] = position }
    }
    self.index = index
    return index
  }
}
