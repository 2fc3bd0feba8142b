import Foundation
import Keepsake
import KeepsakeStore

/// The drafts inbox: add, edit, pin and discard drafts kept in `@Shared(.drafts)`.
///
/// The drafts are not passed in: the state finds them through their key, so a test seeds them by
/// writing the key before it builds the store. New drafts get their IDs from the `\.uuid`
/// dependency: random in the app, `UUID(0)`, `UUID(1)`, ... in a test. Each change also updates
/// the shared ``Session`` from an effect, the way a background task would.
///
/// ```swift
/// let store = Store(initialState: Inbox.State()) { Inbox() }
/// store.send(.add(text: "Call the bank"))
/// store.send(.draftDiscarded(id))
/// ```
nonisolated public struct Inbox: Reducer {
  /// The inbox's state.
  public struct State: Equatable, Sendable {
    /// The drafts, shared with every feature that names the same key.
    @Shared public var drafts: [Draft]
    /// The session, shared in memory.
    @Shared(.inMemory("session")) public var session: Session? = nil
    /// The editor, writing into the same drafts.
    public var editor: Editor.State

    /// The inbox of the drafts stored at `storeURL`, or at the usual place.
    public init(storeURL: URL? = nil) {
      let drafts = Shared(storeURL.map { .drafts(at: $0) } ?? .drafts, default: [])
      self._drafts = drafts
      self.editor = Editor.State(drafts: drafts)
    }
  }

  /// What the inbox does.
  public enum Action: Equatable, Sendable {
    /// Add a draft, with a new ID from the `\.uuid` dependency.
    case add(text: String)
    /// Replace a draft's text.
    case edit(UUID, text: String)
    /// Pin or unpin a draft.
    case setPinned(UUID, Bool)
    /// Discard a draft.
    case draftDiscarded(UUID)
    /// The editor's actions.
    case editor(Editor.Action)
    /// The session was updated (sent by the effect that records changes).
    case sessionRecorded(changes: Int)
  }

  @Dependency(\.uuid) private var uuid

  /// Creates the inbox feature.
  public init() {}

  public func reduce(into state: inout State, action: Action) -> Effect<Action> {
    CombineReducers {
      Scope(state: \.editor, action: Action.editor) { Editor() }
      Reduce(core)
    }
    .reduce(into: &state, action: action)
  }

  private func core(_ state: inout State, _ action: Action) -> Effect<Action> {
    switch action {
    case .add(let text):
      let id = uuid()
      state.$drafts.withLock { $0.append(Draft(id: id, body: text)) }
      return record("added \(id.uuidString.prefix(8).lowercased())", in: state)
    case .edit(let id, let text):
      state.$drafts[id: id]?.body.withLock { $0 = text }
      return record("edited \(id.uuidString.prefix(8).lowercased())", in: state)
    case .setPinned(let id, let pinned):
      state.$drafts[id: id]?.pinned.withLock { $0 = pinned }
      return record(
        "\(pinned ? "pinned" : "unpinned") \(id.uuidString.prefix(8).lowercased())", in: state)
    case .draftDiscarded(let id):
      state.$drafts.withLock { $0.removeAll { $0.id == id } }
      return record("discarded \(id.uuidString.prefix(8).lowercased())", in: state)
    case .editor(.saveTapped):
      return record("saved from the editor", in: state)
    case .editor, .sessionRecorded:
      return .none
    }
  }

  /// An effect that records a change in the shared session, off the reducer, as a background
  /// task would.
  private func record(_ change: String, in state: State) -> Effect<Action> {
    let session = state.$session
    return .run { send in
      let changes = session.withLock { session in
        let changes = (session?.changes ?? 0) + 1
        session = Session(changes: changes, lastChange: change)
        return changes
      }
      await send(.sessionRecorded(changes: changes))
    }
  }
}
