import Foundation
import Testing

@testable import Keepsake

@Suite("Ancestry in the envelope")
struct AncestryTests {
  let notes = [Note(id: 1, text: "milk"), Note(id: 2, text: "bread")]

  /// A chain of `count` versions written by `device` over `start`.
  func chain(_ count: Int, by device: String, from start: FileVersion? = nil) -> [FileVersion] {
    var versions: [FileVersion] = []
    var parent = start
    for index in 0..<count {
      let ancestry = Ancestry.child(of: parent, writer: device)
      let version = FileVersion(
        hash: FileVersion.hash(of: Data("\(device) \(index) \(start?.hash ?? "")".utf8)),
        ancestry: ancestry)
      versions.append(version)
      parent = version
    }
    return versions
  }

  func withAncestry(_ notes: [Note], over parent: FileVersion?) throws -> Data {
    try NotesFormat.encode(notes, ancestry: Ancestry.child(of: parent, writer: "ANNAAAA"))
  }

  @Test("A file in a synced folder starts with its ancestry, before the content, keys sorted")
  func layout() throws {
    let parent = FileVersion(hash: "9f86d081884c", ancestry: nil)
    let data = try withAncestry(notes, over: parent)
    let text = String(decoding: data, as: UTF8.self)
    #expect(
      text.hasPrefix(
        #"{"ancestry":{"by":"ANNAAAA","versions":["1.9f86d081884c.unknown"]},"content":[{"id":1,"#
      ), "\(text)")
    #expect(text.hasSuffix(#","version":2}"#))
  }

  @Test("The ancestry reads back as written, from Keepsake's layout and from a reformatted file")
  func readsBack() throws {
    let first = FileVersion(try withAncestry(notes, over: nil), readsAncestry: true)
    let data = try withAncestry(notes, over: first)
    let ancestry = try #require(Ancestry(parsing: data))
    #expect(ancestry.writer == "ANNAAAA")
    #expect(ancestry.versions.map(\.hash) == [first.hash])
    // Pretty-printed by a person: read by the whole-document parser.
    let object = try JSONSerialization.jsonObject(with: data)
    let pretty = try JSONSerialization.data(
      withJSONObject: object, options: [.prettyPrinted, .sortedKeys])
    #expect(Ancestry(parsing: pretty) == ancestry)
  }

  @Test("A file with ancestry decodes on Keepsake's fast path, to the same value as without")
  func fastPath() throws {
    let data = try withAncestry(notes, over: nil)
    #expect(try NotesFormat.decode(data) == notes)
    #expect(try NotesFormat.decode(data + Data("\n".utf8)) == notes)
  }

  @Test("An older Keepsake's keyed decoding of the envelope ignores the ancestry")
  func generalPathIgnoresAncestry() throws {
    // The path every build takes when its fast path declines, as an older build's does on a
    // file that does not start with `{"content":`.
    let data = try withAncestry(notes, over: nil)
    let envelope = try JSONCoding.decode(DecodingEnvelope<NotesFormat>.self, from: data)
    guard case .current(let value) = envelope.outcome else {
      Issue.record("the envelope was not read as the current version")
      return
    }
    #expect(value == notes)
  }

  @Test("The diagnosing path reads an older version with ancestry, and names paths as before")
  func diagnosingPath() throws {
    // Version 1 with a JSON-level step: read by the whole-document path, as are errors.
    let old = Data(
      #"{"ancestry":{"by":"ANNAAAA","versions":[]},"content":[{"body":"milk","id":1}],"version":1}"#
        .utf8)
    #expect(try NotesFormat.decode(old) == [Note(id: 1, text: "milk")])
    let broken = Data(
      #"{"ancestry":{"by":"ANNAAAA","versions":[]},"content":[{"id":"x","text":"a"}],"version":2}"#
        .utf8)
    #expect {
      try NotesFormat.decode(broken)
    } throws: { error in
      guard case .decodingFailed(2, let path, _) = error as? FormatError else { return false }
      return path == "content[0].id"
    }
    #expect(NotesFormat.version(of: old).version == 1)
  }

  @Test("An ancestry this build cannot read is no ancestry, and the file still decodes")
  func malformedAncestry() throws {
    let odd = Data(
      #"{"ancestry":{"by":"ANNAAAA","versions":["not an entry"]},"content":[],"version":2}"#.utf8)
    #expect(Ancestry(parsing: odd) == nil)
    #expect(try NotesFormat.decode(odd) == [])
    let other = Data(#"{"ancestry":7,"content":[],"version":2}"#.utf8)
    #expect(Ancestry(parsing: other) == nil)
    #expect(try NotesFormat.decode(other) == [])
  }

  @Test("A version that took in a kept change lists it, at its parent's generation, and reads back")
  func keptChangeEntry() throws {
    let first = FileVersion(try withAncestry(notes, over: nil), readsAncestry: true)
    let ancestry = Ancestry.child(of: first, writer: "ANNAAAA", takingIn: "0123456789ab")
    #expect(ancestry.generation == 2, "a kept change is no generation of the file")
    let kept = try #require(ancestry.versions.first { $0.isKeptChange })
    #expect(kept.hash == "0123456789ab")
    #expect(kept.generation == first.entry.generation)
    let data = try NotesFormat.encode(notes, ancestry: ancestry)
    #expect(Ancestry(parsing: data) == ancestry)
    let version = FileVersion(data, readsAncestry: true)
    #expect(version.includes("0123456789ab"))
    // Its children keep listing it while it is recent, and never pin it as a device's newest.
    let later = chain(3, by: "BOBBBBB", from: version)
    #expect(later.last?.includes("0123456789ab") == true)
  }

  @Test("A long chain's list stays bounded and lists every version of its last 32 generations")
  func bounded() {
    let versions = chain(2000, by: "ANNAAAA")
    for version in versions {
      #expect(
        (version.ancestry?.versions.count ?? 0)
          <= Ancestry.recentWindow + Ancestry.pinnedDevices + Ancestry.alignedEntries)
    }
    let last = versions[versions.count - 1]
    let listed = Set(last.ancestry?.versions.map(\.hash) ?? [])
    for version in versions.suffix(33).dropLast() { #expect(listed.contains(version.hash)) }
  }

  @Test("The newest version of another device stays listed however long this one works alone")
  func newestOfEachDeviceStays() {
    let theirs = chain(5, by: "BOBBBBB")
    let mine = chain(300, by: "ANNAAAA", from: theirs.last)
    let listed = mine.last?.ancestry?.versions.map(\.hash) ?? []
    #expect(listed.contains(theirs[4].hash))
  }

  @Test(
    "The last shared version is the newest common one while its writer saved 32 times or fewer since"
  )
  func lastSharedVersionIsFound() {
    let shared = chain(500, by: "ANNAAAA")
    let ann = chain(32, by: "ANNAAAA", from: shared.last)
    // However long Bob works alone, his list keeps Ann's newest version he received.
    let bob = chain(300, by: "BOBBBBB", from: shared.last)
    let common = ann[ann.count - 1].commonVersions(with: bob[bob.count - 1])
    #expect(common.first?.hash == shared.last?.hash)
    #expect(bob[bob.count - 1].commonVersions(with: ann[ann.count - 1]) == common)
  }

  @Test("Past that, two long branches still meet at an older version of their shared history")
  func longBranchesMeetEarlier() throws {
    let shared = chain(500, by: "ANNAAAA")
    let ann = chain(200, by: "ANNAAAA", from: shared.last)
    let bob = chain(90, by: "BOBBBBB", from: shared.last)
    let common = ann[ann.count - 1].commonVersions(with: bob[bob.count - 1])
    let sharedHashes = Set(shared.map(\.hash))
    let newest = try #require(common.first)
    #expect(common.allSatisfy { sharedHashes.contains($0.hash) })
    // Within the alignment of the distance: 200 back keeps every 64th generation at least.
    #expect(newest.generation > 500 - 128)
  }

  @Test("A merge's ancestry is the same wherever it is computed, and lists both sides")
  func mergeIsDeterministic() {
    let base = chain(3, by: "ANNAAAA")
    let ann = chain(4, by: "ANNAAAA", from: base.last)
    let bob = chain(2, by: "BOBBBBB", from: base.last)
    let merged = Ancestry.merge(of: ann[3], and: bob[1])
    #expect(merged == Ancestry.merge(of: ann[3], and: bob[1]))
    #expect(merged.writer == Ancestry.mergeWriter)
    let listed = merged.versions.map(\.hash)
    #expect(listed.contains(ann[3].hash) && listed.contains(bob[1].hash))
    #expect(merged.generation == max(ann[3].entry.generation, bob[1].entry.generation) + 1)
  }
}
