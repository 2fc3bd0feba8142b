import DraftsFeature
import Foundation
import Keepsake

/// The members a version of the app does not know, kept through its writes.
///
/// An older model of the drafts (without `pinned` and `tags`) reads a file the newer one wrote,
/// edits some bodies, deletes and adds drafts, and saves through a file key. The bytes it writes must be exactly
/// what Foundation writes for the drafts as the newer model sees the edit: every unknown member
/// back in its element, none of a deleted element, the added ones as the older model made them.
enum DiffKeptMembers {
  /// A draft as the older model knows it.
  struct OlderDraft: Codable, Equatable, Identifiable, Sendable {
    var id: UUID
    var body: String
  }

  /// A draft as the file holds it after the older model's save: whole, or as the older model
  /// made it.
  enum Stored: Encodable {
    case newer(Draft)
    case older(OlderDraft)

    func encode(to encoder: any Encoder) throws {
      switch self {
      case .newer(let draft): try draft.encode(to: encoder)
      case .older(let draft): try draft.encode(to: encoder)
      }
    }
  }

  /// Runs one case; returns a description of the difference, or `nil` when the bytes agree.
  static func check(using values: inout DiffValues, encoder: JSONEncoder) -> String? {
    let drafts = (0..<Int.random(in: 1...12, using: &values.random)).map { number in
      Draft(
        id: UUID(uuid: uuid(number)), body: values.string(maxPieces: 8),
        pinned: values.chance(50),
        tags: (0..<Int.random(in: 0...3, using: &values.random)).map { _ in values.key() })
    }
    guard let written = try? encoder.encode(drafts) else { return nil }
    let context = StorageContext.inMemory(name: "kept members")
    let url = URL(fileURLWithPath: "/kept/drafts.json")
    let key = FileStorageKey<[OlderDraft]>.fileStorage(url)
    do {
      try context.fileSystem.writeAtomically(written, to: url)
      var older = try key.load(in: context) ?? []
      var expected = drafts.map(Stored.newer)
      // Edits, deletions and an insert, as the older app's person makes them.
      for index in older.indices.reversed() {
        switch Int.random(in: 0..<4, using: &values.random) {
        case 0:
          let body = values.string(maxPieces: 4)
          older[index].body = body
          if case .newer(var draft) = expected[index] {
            draft.body = body
            expected[index] = .newer(draft)
          }
        case 1:
          older.remove(at: index)
          expected.remove(at: index)
        default:
          break
        }
      }
      if values.chance(50) {
        let added = OlderDraft(id: UUID(uuid: uuid(99)), body: values.string(maxPieces: 4))
        older.append(added)
        expected.append(.older(added))
      }
      try key.save(older, in: context)
      let saved = try context.fileSystem.contents(of: url) ?? Data()
      let full = try encoder.encode(expected)
      guard saved != full else { return nil }
      let offset =
        zip(saved, full).enumerated().first { $0.element.0 != $0.element.1 }?.offset
        ?? min(saved.count, full.count)
      return "kept members: at byte \(offset) the older model wrote "
        + String(decoding: saved.dropFirst(max(0, offset - 20)).prefix(60), as: UTF8.self)
        .debugDescription
        + ", a full encode "
        + String(decoding: full.dropFirst(max(0, offset - 20)).prefix(60), as: UTF8.self)
        .debugDescription
    } catch {
      return "kept members: \(error)"
    }
  }

  /// A fixed identifier per number, so a case repeats exactly.
  private static func uuid(_ number: Int) -> uuid_t {
    let byte = UInt8(truncatingIfNeeded: number)
    return (byte, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15)
  }
}
