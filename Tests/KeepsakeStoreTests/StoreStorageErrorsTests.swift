import Foundation
import KeepsakeTesting
import Testing

/// A feature whose state holds a file key directly and another in a child's state.
private struct Notebook: Reducer {
  struct Child {
    @Shared(.fileStorage(URL(filePath: "/notes/archive.json"))) var archive: [String] = []
  }

  struct State {
    @Shared(.fileStorage(URL(filePath: "/notes/notes.json"))) var notes: [String] = []
    var child = Child()
    var pages: [Child] = []
  }

  enum Action: Sendable { case noop }

  func reduce(into state: inout State, action: Action) -> Effect<Action> { .none }
}

@MainActor
@Suite("Store: storage errors")
struct StoreStorageErrorsTests {
  @Test("A store lists nothing while every shared value reads and saves")
  func none() {
    let store = Store(initialState: Notebook.State()) { Notebook() }
    #expect(store.storageErrors.isEmpty)
  }

  @Test("A store surfaces the load errors of its state's shared values, a child's included")
  func loadErrors() throws {
    let disk = try #require(TestDisk.current)
    disk.setContents(Data("not json".utf8), at: URL(filePath: "/notes/notes.json"))
    disk.setContents(Data("[1".utf8), at: URL(filePath: "/notes/archive.json"))
    let store = Store(initialState: Notebook.State()) { Notebook() }

    let errors = store.storageErrors
    #expect(errors.map(\.key).sorted() == ["file(/notes/archive.json)", "file(/notes/notes.json)"])
    for error in errors {
      guard case .load(let load) = error.kind else {
        Issue.record("expected a load error, got \(error)")
        continue
      }
      #expect(error.description == load.description)
    }
  }
}
