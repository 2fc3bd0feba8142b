import DraftsFeature
import Foundation
import Keepsake
import KeepsakeStore
import KeepsakeTesting
import Testing

@MainActor
@Suite("Inbox")
struct InboxTests {
  @Test("Discarding the seeded draft empties the shared drafts, and the session records it")
  func discardSeededDraft() async {
    // The drafts are seeded through their key; the state finds them on its own.
    @Shared(.drafts) var drafts = []
    $drafts.withLock { $0 = [Draft(id: UUID(0), body: "unfinished")] }

    let store = TestStore(initialState: Inbox.State()) { Inbox() }

    await store.send(.draftDiscarded(UUID(0))) {
      $0.$drafts.withLock { $0 = [] }
    }
    await store.receive(.sessionRecorded(changes: 1)) {
      $0.$session.withLock { $0 = Session(changes: 1, lastChange: "discarded 00000000") }
    }
    await store.finish()
  }

  @Test("Adding drafts takes their IDs from the uuid dependency: UUID(0), then UUID(1)")
  func addTakesIDsFromTheDependency() async {
    let store = TestStore(initialState: Inbox.State()) { Inbox() }

    await store.send(.add(text: "Call the bank")) {
      $0.$drafts.withLock { $0 = [Draft(id: UUID(0), body: "Call the bank")] }
    }
    await store.receive(.sessionRecorded(changes: 1)) {
      $0.$session.withLock { $0 = Session(changes: 1, lastChange: "added 00000000") }
    }
    await store.send(.add(text: "Water the plants")) {
      $0.$drafts.withLock { $0.append(Draft(id: UUID(1), body: "Water the plants")) }
    }
    await store.receive(Inbox.Action.sessionRecorded, 2) {
      $0.$session.withLock { $0 = Session(changes: 2, lastChange: "added 00000000") }
    }
    await store.finish()
  }

  @Test("Shared drafts and the uuid dependency, asserted side by side")
  func sharedStateNextToDependencies() async {
    @Shared(.drafts) var drafts = []
    $drafts.withLock { $0 = [Draft(id: UUID(0), body: "unfinished")] }

    let store = TestStore(initialState: Inbox.State()) {
      Inbox()
    } withDependencies: {
      $0.uuid = .incrementing
    }

    await store.send(.draftDiscarded(UUID(0))) {
      $0.$drafts.withLock { $0 = [] }
    }
    await store.receive(Inbox.Action.sessionRecorded, 1) {
      $0.$session.withLock { $0 = Session(changes: 1, lastChange: "discarded 00000000") }
    }
    await store.send(.add(text: "Call the bank")) {
      $0.$drafts.withLock { $0 = [Draft(id: UUID(0), body: "Call the bank")] }
    }
    await store.receive(Inbox.Action.sessionRecorded, 2) {
      $0.$session.withLock { $0 = Session(changes: 2, lastChange: "added 00000000") }
    }
    await store.finish()
    #expect(drafts == [Draft(id: UUID(0), body: "Call the bank")])
  }

  @Test("A test sets the generator when the store is made, and changes it between steps")
  func overridingTheGenerator() async {
    let pinned = UUID(uuidString: "A1B2C3D4-0000-4000-8000-000000000001") ?? UUID()
    let store = TestStore(initialState: Inbox.State()) {
      Inbox()
    } withDependencies: {
      $0.uuid = .constant(pinned)
    }

    await store.send(.add(text: "first")) {
      $0.$drafts.withLock { $0 = [Draft(id: pinned, body: "first")] }
    }
    await store.receive(Inbox.Action.sessionRecorded) {
      $0.$session.withLock { $0 = Session(changes: 1, lastChange: "added a1b2c3d4") }
    }
    store.dependencies.uuid = .incrementing
    await store.send(.add(text: "second")) {
      $0.$drafts.withLock { $0.append(Draft(id: UUID(0), body: "second")) }
    }
    await store.receive(Inbox.Action.sessionRecorded) {
      $0.$session.withLock { $0 = Session(changes: 2, lastChange: "added 00000000") }
    }
    await store.finish()
  }

  @Test("The editor, a child feature, gets its new draft's ID from the inbox store's generator")
  func editorWritesDrafts() async {
    let store = TestStore(initialState: Inbox.State()) { Inbox() }

    await store.send(.add(text: "Pay rent")) {
      $0.$drafts.withLock { $0 = [Draft(id: UUID(0), body: "Pay rent")] }
    }
    await store.receive(.sessionRecorded(changes: 1)) {
      $0.$session.withLock { $0 = Session(changes: 1, lastChange: "added 00000000") }
    }
    await store.send(.editor(.textChanged("Call the bank"))) { $0.editor.text = "Call the bank" }
    await store.send(.editor(.saveTapped)) {
      $0.editor.draftID = UUID(1)
      $0.$drafts.withLock { $0.append(Draft(id: UUID(1), body: "Call the bank")) }
    }
    await store.receive(.sessionRecorded(changes: 2)) {
      $0.$session.withLock { $0 = Session(changes: 2, lastChange: "saved from the editor") }
    }
    await store.finish()
  }

  @Test("Forgetting to assert a change of the shared drafts fails, naming them")
  func unassertedSharedChangeFails() async {
    let store = TestStore(initialState: Inbox.State()) { Inbox() }

    await withKnownIssue {
      await store.send(.add(text: "hello"))
    } matching: { issue in
      issue.comments.map(\.rawValue).joined().contains("drafts")
    }
    store.exhaustivity = .off
    await store.finish()
  }

  @Test("Pinning and editing go through the same shared drafts")
  func pinAndEdit() async {
    @Shared(.drafts) var drafts = []
    $drafts.withLock { $0 = [Draft(id: UUID(0), body: "draft")] }
    let store = TestStore(initialState: Inbox.State()) { Inbox() }
    store.exhaustivity = .off

    await store.send(.setPinned(UUID(0), true)) {
      $0.$drafts.withLock { $0 = [Draft(id: UUID(0), body: "draft", pinned: true)] }
    }
    await store.send(.edit(UUID(0), text: "final")) {
      $0.$drafts.withLock { $0 = [Draft(id: UUID(0), body: "final", pinned: true)] }
    }
    await store.finish()
    #expect(drafts == [Draft(id: UUID(0), body: "final", pinned: true)])
  }
}
