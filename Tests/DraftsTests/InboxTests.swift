import DraftsFeature
import Foundation
import Keepsake
import KeepsakeStore
import KeepsakeTesting
import Testing

@MainActor
@Suite("Inbox")
struct InboxTests {
  let id = UUID(uuidString: "A1B2C3D4-0000-4000-8000-000000000001") ?? UUID()

  @Test("Discarding the seeded draft empties the shared drafts, and the session records it")
  func discardSeededDraft() async {
    // The drafts are seeded through their key; the state finds them on its own.
    @Shared(.drafts) var drafts = []
    $drafts.withLock { $0 = [Draft(id: id, body: "unfinished")] }

    let store = TestStore(initialState: Inbox.State()) { Inbox() }

    await store.send(.draftDiscarded(id)) {
      $0.$drafts.withLock { $0 = [] }
    }
    await store.receive(.sessionRecorded(changes: 1)) {
      $0.$session.withLock { $0 = Session(changes: 1, lastChange: "discarded a1b2c3d4") }
    }
    await store.finish()
  }

  @Test("The editor, a child feature, writes the shared drafts")
  func editorWritesDrafts() async {
    let store = TestStore(initialState: Inbox.State()) { Inbox() }

    await store.send(.editor(.textChanged("Call the bank"))) { $0.editor.text = "Call the bank" }
    await store.send(.editor(.saveTapped(newID: id))) {
      $0.editor.draftID = self.id
      $0.$drafts.withLock { $0 = [Draft(id: self.id, body: "Call the bank")] }
    }
    await store.receive(.sessionRecorded(changes: 1)) {
      $0.$session.withLock { $0 = Session(changes: 1, lastChange: "saved from the editor") }
    }
    await store.finish()
  }

  @Test("Forgetting to assert a change of the shared drafts fails, naming them")
  func unassertedSharedChangeFails() async {
    let store = TestStore(initialState: Inbox.State()) { Inbox() }

    await withKnownIssue {
      await store.send(.add(id: id, text: "hello"))
    } matching: { issue in
      issue.comments.map(\.rawValue).joined().contains("drafts")
    }
    store.exhaustivity = .off
    await store.finish()
  }

  @Test("Pinning and editing go through the same shared drafts")
  func pinAndEdit() async {
    @Shared(.drafts) var drafts = []
    $drafts.withLock { $0 = [Draft(id: id, body: "draft")] }
    let store = TestStore(initialState: Inbox.State()) { Inbox() }
    store.exhaustivity = .off

    await store.send(.setPinned(id, true)) {
      $0.$drafts.withLock { $0 = [Draft(id: self.id, body: "draft", pinned: true)] }
    }
    await store.send(.edit(id, text: "final")) {
      $0.$drafts.withLock { $0 = [Draft(id: self.id, body: "final", pinned: true)] }
    }
    await store.finish()
    #expect(drafts == [Draft(id: id, body: "final", pinned: true)])
  }
}
