import Foundation
import Keepsake
import Testing

@Suite("Safe defaults for added fields")
struct DefaultedTests {
  /// A property default is ignored by the synthesized decoder.
  struct Plain: Codable, Equatable {
    var text: String
    var pinned = false
  }

  struct Safe: Codable, Equatable, Hashable, Sendable {
    var text: String
    @Defaulted<DefaultValue.False> var pinned: Bool = false
    @Defaulted<DefaultValue.True> var visible: Bool = true
    @Defaulted<DefaultValue.Zero<Int>> var count: Int = 0
    @Defaulted<DefaultValue.Empty<[String]>> var tags: [String] = []
    @Defaulted<DefaultValue.Empty<String>> var note: String = ""
    @Defaulted<DefaultValue.EmptySet<Set<Int>>> var ids: Set<Int> = []
    @Defaulted<DefaultValue.EmptyDictionary<String, Int>> var counts: [String: Int] = [:]
    @Defaulted<DefaultValue.Nil<String>> var archived: String? = nil
  }

  @Test("Without the wrapper, a missing key throws keyNotFound despite the property default")
  func synthesizedIgnoresDefaults() {
    #expect {
      try JSONDecoder().decode(Plain.self, from: Data(#"{"text":"a"}"#.utf8))
    } throws: { error in
      guard case .keyNotFound(let key, _) = error as? DecodingError else { return false }
      return key.stringValue == "pinned"
    }
  }

  @Test("With the wrapper, every missing key decodes as its default")
  func missingKeysDecodeAsDefaults() throws {
    let safe = try JSONDecoder().decode(Safe.self, from: Data(#"{"text":"a"}"#.utf8))
    #expect(safe == Safe(text: "a"))
    #expect(safe.visible == true && safe.pinned == false && safe.archived == nil)
  }

  @Test("A present key keeps its value")
  func presentKeysAreKept() throws {
    let json = #"{"text":"a","pinned":true,"visible":false,"count":3,"tags":["x"],"archived":"y"}"#
    let safe = try JSONDecoder().decode(Safe.self, from: Data(json.utf8))
    #expect(
      safe.pinned && !safe.visible && safe.count == 3 && safe.tags == ["x"] && safe.archived == "y")
  }

  @Test("A present key with the wrong type is still an error, never defaulted")
  func wrongTypeIsAnError() {
    #expect {
      try JSONDecoder().decode(Safe.self, from: Data(#"{"text":"a","pinned":"yes"}"#.utf8))
    } throws: { error in
      guard case .typeMismatch(let type, let context) = error as? DecodingError else {
        return false
      }
      return type == Bool.self && context.codingPath.map(\.stringValue) == ["pinned"]
    }
  }

  @Test("It encodes as the plain value")
  func encodesPlainValue() throws {
    struct Small: Codable {
      var text: String
      @Defaulted<DefaultValue.False> var pinned: Bool = false
      @Defaulted<DefaultValue.Empty<[String]>> var tags: [String] = []
    }
    let encoder = JSONEncoder()
    encoder.outputFormatting = .sortedKeys
    let data = try encoder.encode(Small(text: "a", pinned: true, tags: ["t"]))
    #expect(String(decoding: data, as: UTF8.self) == #"{"pinned":true,"tags":["t"],"text":"a"}"#)
  }

  @Test("Equality and hashing see the wrapped value")
  func equatableAndHashable() {
    var other = Safe(text: "a")
    #expect(Set([Safe(text: "a"), other]).count == 1)
    other.pinned = true
    #expect(Safe(text: "a") != other)
  }
}
