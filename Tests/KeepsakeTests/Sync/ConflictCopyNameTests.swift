import Foundation
import Testing

@testable import Keepsake

@Suite("Sync engines' conflict copy names")
struct ConflictCopyNameTests {
  @Test(
    "Each engine's copy of notes.json is recognized as that engine's",
    arguments: [
      ("notes.sync-conflict-20261201-152748-6IHVPYN.json", SyncEngine.syncthing),
      ("notes.sync-conflict-20140921-084215.json", .syncthing),
      ("notes (Ann Smith's conflicted copy 2026-12-01).json", .dropbox),
      ("notes (Ann's MacBook Pro's conflicted copy 2026-12-01).json", .dropbox),
      ("notes (Ann's conflicted copy 2026-12-01 (1)).json", .dropbox),
      ("notes (conflicted copy 2026-12-01).json", .dropbox),
      ("notes (conflicted copy 2026-12-01 152748).json", .nextcloud),
      ("notes (conflicted copy ann 2026-12-01 152748).json", .nextcloud),
      ("notes_conflict-20261201-152748.json", .ownCloud),
      ("notes_conflict_ann-20261201-152748.json", .ownCloud),
    ])
  func recognized(_ name: String, _ engine: SyncEngine) {
    #expect(ConflictCopyName.engine(ofCopy: name, of: "notes.json") == engine)
  }

  @Test(
    "Names that are not a copy of notes.json are not taken for one",
    arguments: [
      "notes.json",
      "notes.json.lock",
      ".notes.json.keepsake-tmp-123-456",
      "notes.conflict-20261201T090000Z.json",  // Keepsake's own copy between processes
      "notes.quarantined-20261201T090000Z.json",
      "other.sync-conflict-20261201-152748-6IHVPYN.json",  // another file's copy
      "notes.sync-conflict-20261201-152748-6IHVPYN.txt",  // another extension
      "notes.sync-conflict-2026121-152748-6IHVPYN.json",  // a short date
      "notes.sync-conflict-20261201-152748-6ihvpyn.json",  // not base 32
      "notes.sync-conflict-20261201-152748-6IHVPY.json",  // six characters
      "notes (Ann's copy 2026-12-01).json",
      "notes (Ann's conflicted copy 2026-12).json",
      "notes (conflicted copy 2026-12-01 1527).json",
      "notes_conflict-20261201.json",
      "notes_conflict_-20261201-152748.json",
      "notes 2.json",
    ])
  func notRecognized(_ name: String) {
    #expect(ConflictCopyName.engine(ofCopy: name, of: "notes.json") == nil)
  }

  @Test(
    "The tag goes before the last extension, or at the end of a name without one",
    arguments: [
      ("archive.tar.gz", "archive.tar.sync-conflict-20261201-152748-6IHVPYN.gz"),
      ("archive.tar.gz", "archive.tar (conflicted copy 2026-12-01 152748).gz"),
      ("journal", "journal.sync-conflict-20261201-152748-6IHVPYN"),
      ("journal", "journal (Ann's conflicted copy 2026-12-01)"),
      ("journal", "journal_conflict-20261201-152748"),
      (".config", ".config.sync-conflict-20261201-152748-6IHVPYN"),
    ])
  func extensions(_ file: String, _ copy: String) {
    #expect(ConflictCopyName.engine(ofCopy: copy, of: file) != nil)
  }

  @Test("Every engine's copy passes the watcher's quick first look")
  func quickLookLetsEveryCopyThrough() {
    let copies = [
      "notes.sync-conflict-20261201-152748-6IHVPYN.json",
      "notes (Ann's conflicted copy 2026-12-01).json",
      "notes (conflicted copy 2026-12-01 152748).json",
      "notes_conflict-20261201-152748.json",
    ]
    for copy in copies { #expect(ConflictCopyName.mightBeCopy(copy), "\(copy)") }
    // A tag that is the whole name, or ends it, is found; a name shorter than every tag, or
    // holding only part of one, is not.
    #expect(ConflictCopyName.mightBeCopy("_conflict"))
    #expect(ConflictCopyName.mightBeCopy("é.sync-conflict-"))
    for name in ["notes.json", "", "_confli", "conflicted cop", ".items.json.keepsake-tmp-1-2"] {
      #expect(!ConflictCopyName.mightBeCopy(name), "\(name)")
    }
  }
}
