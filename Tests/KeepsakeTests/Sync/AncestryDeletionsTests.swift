import Foundation
import Testing

@testable import Keepsake

/// What a kept change deleted, carried by the versions that list it.
@Suite("Deletions of kept changes in the ancestry")
struct AncestryDeletionsTests {
  let notes = [Note(id: 1, text: "milk")]
  let change = "0123456789ab"

  /// The trees of a kept change that deleted note 2 ("a secret") from a list of notes 1 and 2.
  func deletingNoteTwo() throws -> [JSONValue] {
    let before = try JSONValue(
      parsing: try NotesFormat.encode([Note(id: 1, text: "milk"), Note(id: 2, text: "a secret")]))
    let after = try JSONValue(parsing: try NotesFormat.encode(notes))
    return [try #require(FieldMerge.deletions(from: before, to: after))]
  }

  /// A first version, written by `device`, with no ancestry of its own.
  func first(_ device: String = "ANNAAAA") throws -> FileVersion {
    let data = try NotesFormat.encode(notes, ancestry: Ancestry.child(of: nil, writer: device))
    return FileVersion(data, readsAncestry: true)
  }

  /// A version written over `parent` by `device`.
  func version(over parent: FileVersion, by device: String, _ index: Int) -> FileVersion {
    FileVersion(
      hash: FileVersion.hash(of: Data("\(device) \(index) \(parent.hash)".utf8)),
      ancestry: Ancestry.child(of: parent, writer: device))
  }

  @Test(
    "A version that took in a kept change carries what it deleted, as digests, and reads it back")
  func carriedAndRead() throws {
    let trees = try deletingNoteTwo()
    let ancestry = Ancestry.child(
      of: try first(), writer: "ANNAAAA", takingIn: change, deleting: trees)
    #expect(ancestry.deletions == [Ancestry.Deletions(change: change, steps: trees)])
    let data = try NotesFormat.encode(notes, ancestry: ancestry)
    let text = String(decoding: data, as: UTF8.self)
    #expect(text.contains(#""deletions":[{"change":"0123456789ab","steps":[{"content":[{"#))
    #expect(!text.contains("a secret"), "what was deleted does not stay in the file: \(text)")
    #expect(Ancestry(parsing: data) == ancestry)
    // Read exactly, so the content still decodes on the fast path.
    let (scanned, offset) = try #require(Ancestry.scanEnvelopePrefix(data))
    #expect(scanned == ancestry)
    #expect(data[offset...].starts(with: Data(#"[{"id":1,"#.utf8)))
    #expect(try NotesFormat.decode(data) == notes)
    // A deletion's id holding brackets, quotes and escapes is found all the same.
    let odd = try JSONValue(parsing: Data(#"[{"id":"a]}\\\"[{","t":"x"}]"#.utf8))
    let tree = try #require(FieldMerge.deletions(from: odd, to: .array([])))
    let oddAncestry = Ancestry.child(
      of: try first(), writer: "ANNAAAA", takingIn: change, deleting: [tree])
    let oddData = try NotesFormat.encode(notes, ancestry: oddAncestry)
    #expect(Ancestry.scanEnvelopePrefix(oddData)?.0 == oddAncestry)
    // An older build's envelope reading ignores the ancestry as before.
    let envelope = try JSONCoding.decode(DecodingEnvelope<NotesFormat>.self, from: data)
    guard case .current(let value) = envelope.outcome else {
      Issue.record("the envelope was not read as the current version")
      return
    }
    #expect(value == notes)
  }

  @Test("Later versions carry the deletions while the change is in their recent window only")
  func carriedWhileRecent() throws {
    var version = FileVersion(
      hash: "aaaaaaaaaaaa",
      ancestry: Ancestry.child(
        of: try first(), writer: "ANNAAAA", takingIn: change, deleting: try deletingNoteTwo()))
    var carriedFor = 0
    for index in 0..<(Ancestry.recentWindow + 4) {
      version = self.version(over: version, by: "BOBBBBB", index)
      if version.ancestry?.deletions.first?.change == change { carriedFor += 1 }
    }
    #expect(carriedFor == Ancestry.recentWindow - 1)
    #expect(version.ancestry?.deletions == [])
  }

  @Test("A merge carries both sides' deletions, the same wherever it is computed")
  func merged() throws {
    let base = try first()
    let trees = try deletingNoteTwo()
    let ann = FileVersion(
      hash: "aaaaaaaaaaaa",
      ancestry: Ancestry.child(of: base, writer: "ANNAAAA", takingIn: change, deleting: trees))
    let other = "ba9876543210"
    let bob = FileVersion(
      hash: "bbbbbbbbbbbb",
      ancestry: Ancestry.child(of: base, writer: "BOBBBBB", takingIn: other, deleting: trees))
    let merge = Ancestry.merge(of: ann, and: bob)
    #expect(merge == Ancestry.merge(of: bob, and: ann))
    #expect(merge.deletions.map(\.change) == [change, other])
    // Taken in on both sides: carried once.
    let again = FileVersion(
      hash: "cccccccccccc",
      ancestry: Ancestry.child(of: base, writer: "BOBBBBB", takingIn: change, deleting: trees))
    #expect(Ancestry.merge(of: ann, and: again).deletions.map(\.change) == [change])
  }

  @Test("A change that deleted more than the limit is listed, not carried")
  func tooLargeNotCarried() throws {
    let many = (0..<2000).map { Note(id: $0, text: "note \($0)") }
    let before = try JSONValue(parsing: try NotesFormat.encode(many))
    let after = try JSONValue(parsing: try NotesFormat.encode([]))
    let trees = [try #require(FieldMerge.deletions(from: before, to: after))]
    #expect(
      Ancestry.Deletions(change: change, steps: trees).encoded.count > Ancestry.deletionsLimit)
    let ancestry = Ancestry.child(
      of: try first(), writer: "ANNAAAA", takingIn: change, deleting: trees)
    #expect(ancestry.versions.contains { $0.hash == change && $0.isKeptChange })
    #expect(ancestry.deletions == [])
  }

  @Test("Damaged deletions are none, and the rest of the ancestry still reads")
  func damaged() throws {
    let data = Data(
      #"{"ancestry":{"by":"ANNAAAA","deletions":[{"change":"not a hash","steps":[]}],"versions":["1.9f86d081884c.unknown"]},"content":[],"version":2}"#
        .utf8)
    let ancestry = try #require(Ancestry(parsing: data))
    #expect(ancestry.versions.map(\.hash) == ["9f86d081884c"])
    #expect(ancestry.deletions == [])
    #expect(try NotesFormat.decode(data) == [])
  }
}
