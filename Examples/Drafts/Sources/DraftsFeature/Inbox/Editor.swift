import Foundation
import Keepsake
import KeepsakeStore

/// Edits one draft's text and writes it into the shared drafts when saved.
///
/// It has no drafts of its own: it writes the same `@Shared` drafts the inbox reads, so the
/// change is visible everywhere at once, and a test of the inbox must assert it. A new draft's ID
/// comes from the `\.uuid` dependency: as a child of the inbox, the editor gets the inbox
/// store's generator.
nonisolated public struct Editor: Reducer {
  /// The editor's state.
  public struct State: Equatable, Sendable {
    /// The draft being edited, or `nil` for a new one.
    public var draftID: UUID?
    /// The text being typed.
    public var text: String
    /// The drafts the editor writes into.
    @Shared public var drafts: [Draft]

    /// An editor writing into `drafts`.
    public init(drafts: Shared<[Draft]>, draftID: UUID? = nil, text: String = "") {
      self._drafts = drafts
      self.draftID = draftID
      self.text = text
    }
  }

  /// What the editor does.
  public enum Action: Equatable, Sendable {
    /// The text changed.
    case textChanged(String)
    /// Save the text: a new draft, or the edited one.
    case saveTapped
  }

  @Dependency(\.uuid) private var uuid

  /// Creates the editor feature.
  public init() {}

  public func reduce(into state: inout State, action: Action) -> Effect<Action> {
    switch action {
    case .textChanged(let text):
      state.text = text
      return .none
    case .saveTapped:
      let text = state.text
      if let id = state.draftID {
        // The draft's own reference, bound to its id: it writes through to the drafts and is
        // saved by their key, wherever the draft has moved in the list meanwhile.
        state.$drafts[id: id]?.body.withLock { $0 = text }
      } else {
        let newID = uuid()
        state.$drafts.withLock { $0.append(Draft(id: newID, body: text)) }
        state.draftID = newID
      }
      return .none
    }
  }
}
