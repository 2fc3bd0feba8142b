import Foundation
import Keepsake
import KeepsakeStore
import Testing

// NB: a fixture of the shapes TestStore must handle (shared state, a child feature, effects that
// send back, one that runs until cancelled), not a copy of the Drafts example's `Inbox`: that
// feature is tested as it is in `DraftsTests`.

/// A draft message, as the desk keeps it.
struct Draft: Equatable, Identifiable, Sendable {
  let id: UUID
  var text: String
  var isPinned = false
}

/// Writes a new draft into the shared drafts.
struct Composer: Reducer {
  struct State {
    var text = ""
    @Shared(.inMemory("drafts")) var drafts: [Draft] = []
  }

  enum Action: Equatable, Sendable {
    case textChanged(String)
    case saveTapped(UUID)
    case signOutTapped
  }

  func reduce(into state: inout State, action: Action) -> Effect<Action> {
    switch action {
    case .textChanged(let text):
      state.text = text
      return .none
    case .saveTapped(let id):
      let text = state.text
      state.$drafts.withLock { $0.append(Draft(id: id, text: text)) }
      state.text = ""
      return .none
    case .signOutTapped:
      // NB: the session is not part of the composer's state: a test of the composer must still
      // assert this change.
      @Shared(.inMemory("session")) var session: String? = nil
      $session.withLock { $0 = nil }
      return .none
    }
  }
}

/// The desk: shared drafts, a shared session, and the composer as a child feature.
struct Desk: Reducer {
  struct State {
    @Shared(.inMemory("drafts")) var drafts: [Draft] = []
    @Shared(.inMemory("session")) var session: String? = nil
    var editor = Composer.State()
    var isRefreshing = false
    var isTicking = false
  }

  enum Action: Equatable, Sendable {
    case addDraft(Draft)
    case editDraft(UUID, String)
    case pinDraft(UUID)
    case draftDiscarded(UUID)
    case editor(Composer.Action)
    case refreshTapped
    case refreshed(String)
    case signOutTapped
    case signedOut
    case switchUserTapped
    case startTicking
    case cancelTicking
    case tick
  }

  enum CancelID: Hashable, Sendable { case ticking }

  func reduce(into state: inout State, action: Action) -> Effect<Action> {
    CombineReducers {
      Scope(state: \.editor, action: Action.editor) { Composer() }
      Reduce(core)
    }
    .reduce(into: &state, action: action)
  }

  private func core(_ state: inout State, _ action: Action) -> Effect<Action> {
    switch action {
    case .addDraft(let draft):
      state.$drafts.withLock { $0.append(draft) }
      return .none
    case .editDraft(let id, let text):
      state.$drafts.withLock { drafts in
        if let index = drafts.firstIndex(where: { $0.id == id }) { drafts[index].text = text }
      }
      return .none
    case .pinDraft(let id):
      state.$drafts.withLock { drafts in
        if let index = drafts.firstIndex(where: { $0.id == id }) { drafts[index].isPinned = true }
      }
      return .none
    case .draftDiscarded(let id):
      state.$drafts.withLock { $0.removeAll { $0.id == id } }
      return .none
    case .editor:
      return .none
    case .refreshTapped:
      state.isRefreshing = true
      return .run { send in await send(.refreshed("alice")) }
    case .refreshed(let user):
      state.isRefreshing = false
      state.$session.withLock { $0 = user }
      return .none
    case .signOutTapped:
      let session = state.$session
      return .run { send in
        session.withLock { $0 = nil }
        await send(.signedOut)
      }
    case .signedOut:
      return .none
    case .switchUserTapped:
      // NB: one effect sends both, so they are always received in this order.
      let session = state.$session
      return .run { send in
        session.withLock { $0 = nil }
        await send(.signedOut)
        await send(.refreshed("alice"))
      }
    case .startTicking:
      state.isTicking = true
      return .run { send in
        // Runs until cancelled.
        try await Task.sleep(for: .seconds(3_600))
        await send(.tick)
      }
      .cancellable(id: CancelID.ticking)
    case .cancelTicking:
      state.isTicking = false
      return .cancel(id: CancelID.ticking)
    case .tick:
      return .none
    }
  }
}

/// The text of the comments of an issue: what a test store reported.
func message(of issue: Issue) -> String {
  issue.comments.map(\.rawValue).joined(separator: "\n")
}
