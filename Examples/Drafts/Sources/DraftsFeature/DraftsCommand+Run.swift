import Foundation
import Keepsake
import KeepsakeStore

extension DraftsCommand {
  /// Runs the command through the ``Inbox`` feature and returns what it prints.
  ///
  /// The command is sent to a `Store` of the inbox, whose drafts are the `@Shared` drafts stored
  /// at ``storeURL`` in the current storage context. Every command that changes the drafts runs
  /// as one cross-process transaction: under the file's lock, the drafts are first refreshed
  /// from the file, the command runs on them (an ID prefix is resolved against the freshest
  /// drafts), and the result is written durably before the lock is released. So any number of
  /// `drafts` programs run at once against one store lose nothing, and a command's "Added" is
  /// only printed once the draft is on disk. An unreadable store (damaged, or written by a newer
  /// version) fails every command that reads it, and is never modified.
  ///
  /// - Throws: ``DraftsError`` with a one-line message.
  @MainActor
  public func run() async throws(DraftsError) -> String {
    switch action {
    case .help: return Self.usage
    case .path: return storeURL.path
    default: break
    }
    let store = Store(initialState: Inbox.State(storeURL: storeURL)) { Inbox() }
    let drafts = store.state.$drafts
    for problem in store.storageErrors {
      if case .load(let loadError) = problem.kind {
        if case .add(let text) = action,
          case .versionFromFuture(let found, let supported)? =
            loadError.underlying as? FormatError
        {
          throw await keepForNewerVersion(
            text, store: store, drafts: drafts, found: found, supported: supported)
        }
        throw DraftsError(
          "cannot read the drafts in \(storeURL.path): \(loadError.reason) Nothing was changed.")
      }
    }
    if case .list(let json) = action {
      if json { return try Self.json(drafts.wrappedValue) }
      return ([Self.table(drafts.wrappedValue)] + keptVersionsNote()).joined(separator: "\n")
    }
    do {
      let done = try await drafts.withTransaction { () async throws -> String in
        try await change(store, drafts: drafts.wrappedValue)
      }
      // Every writer is told: a conflict this command met, and the versions kept beside the
      // store by any program (this one, the app, another device).
      var lines = done.isEmpty ? [] : [done]
      // NB: a copy another process kept is in the note on the versions kept beside the store.
      if let conflict = drafts.lastConflict, !conflict.keptByAnotherProcess {
        lines.append("Note: \(conflict)")
      }
      return (lines + keptVersionsNote()).joined(separator: "\n")
    } catch let error as DraftsError {
      throw error
    } catch SharedSaveError.writeFailed(_, let underlying) {
      throw notSaved(underlying)
    } catch let error as FileSystemError {
      // The transaction could not begin: its lock could not be taken.
      throw notSaved(error)
    } catch {
      throw DraftsError(String(describing: error))
    }
  }

  /// Adds a draft to a store written by a newer version of the program, which this one cannot
  /// read.
  ///
  /// The store is left untouched, and the new draft is kept durably beside it (as every refused
  /// change is), in this version's format with what it was based on, so the newer version
  /// merges it into the store when it next opens it. The command still fails: the draft is not
  /// in the store yet, and this program cannot list or edit it.
  @MainActor
  private func keepForNewerVersion(
    _ text: String, store: Store<Inbox.State, Inbox.Action>, drafts: Shared<[Draft]>,
    found: Int, supported: Int
  ) async -> DraftsError {
    let refused =
      "the drafts in \(storeURL.path) were written by a newer version of drafts (format "
      + "version \(found); this one reads up to \(supported)), so the draft was not added to them."
    await withDependencies {
      $0.uuid = .live
    } operation: {
      await store.send(.add(text: text)).finish()
    }
    do {
      try await drafts.save()
    } catch SharedSaveError.protected {
      // The expected refusal: the change is kept beside the store before it is reported.
      if !keptVersionsNote().isEmpty {
        return DraftsError(
          refused + " It is kept beside them, and the newer version adds it when it next opens "
            + "them; update this program to see it.")
      }
    } catch {
      return DraftsError(refused + " It could not be kept either: \(error)")
    }
    return DraftsError(refused + " Nothing was changed.")
  }

  /// A line about the versions kept beside the store (conflict copies, changes another version
  /// of the program could not save), when there are any.
  private func keptVersionsNote() -> [String] {
    let folder = storeURL.deletingLastPathComponent()
    // NB: through the current context: under test it is the test's own disk.
    let copies = (try? StorageContext.current.keptCopies(of: storeURL)) ?? []
    let kept = copies.filter { $0.reason == .conflict || $0.reason == .unsaved }
    guard !kept.isEmpty else { return [] }
    return [
      "Note: \(kept.count) other version(s) of these drafts are kept beside them; "
        + "`keepsake quarantined \(folder.path)` lists them, `keepsake restore` puts one back."
    ]
  }

  /// What to say when the change could not be written: a program that ends now cannot save it
  /// later, so the message never promises that it will.
  ///
  /// NB: the `drafts` program ends with `_exit` after a failure, so the exit flush does not try
  /// the write again behind this message's back.
  private func notSaved(_ error: any Error) -> DraftsError {
    let description = String(describing: error)
    let text = description.hasSuffix(".") ? description : description + "."
    let folder = storeURL.deletingLastPathComponent().standardizedFileURL.path
    if let error = error as? FileSystemError, error.operation == .fsync,
      URL(fileURLWithPath: error.path).standardizedFileURL.path == folder
    {
      // The rename happened; only the folder's flush failed.
      return DraftsError(
        "the change was written to \(storeURL.path), but the disk did not confirm it is durable, "
          + "so a power cut could still lose it: \(text)")
    }
    return DraftsError(
      "the change was not saved: \(text) The drafts in \(storeURL.path) were not changed.")
  }

  /// Sends the command's action to the store, inside the transaction, and says what it did.
  @MainActor
  private func change(
    _ store: Store<Inbox.State, Inbox.Action>, drafts: [Draft]
  ) async throws(DraftsError) -> String {
    switch action {
    case .add(let text):
      // NB: the program passes the live generator even when a test runs it in-process, so IDs
      // are random as in the app; the new draft is the one the snapshot did not have.
      await withDependencies {
        $0.uuid = .live
      } operation: {
        await store.send(.add(text: text)).finish()
      }
      let added = store.state.drafts.last { draft in !drafts.contains { $0.id == draft.id } }
      guard let added else { throw DraftsError("the draft was not added") }
      return "Added \(Self.shortID(added.id))."
    case .edit(let prefix, let text):
      let id = try Self.resolve(prefix, in: drafts)
      await store.send(.edit(id, text: text)).finish()
      return "Edited \(Self.shortID(id))."
    case .pin(let prefix), .unpin(let prefix):
      let id = try Self.resolve(prefix, in: drafts)
      let pinned = action == .pin(id: prefix)
      await store.send(.setPinned(id, pinned)).finish()
      return "\(pinned ? "Pinned" : "Unpinned") \(Self.shortID(id))."
    case .discard(let prefix):
      let id = try Self.resolve(prefix, in: drafts)
      await store.send(.draftDiscarded(id)).finish()
      return "Discarded \(Self.shortID(id))."
    case .list, .help, .path:
      return ""
    }
  }

  // MARK: - Helpers

  static func shortID(_ id: UUID) -> String {
    String(id.uuidString.lowercased().prefix(8))
  }

  /// The draft whose ID starts with `prefix` (case-insensitive); it must be the only one.
  static func resolve(_ prefix: String, in drafts: [Draft]) throws(DraftsError) -> UUID {
    let needle = prefix.lowercased()
    let matches = drafts.filter { $0.id.uuidString.lowercased().hasPrefix(needle) }
    guard !needle.isEmpty, let first = matches.first else {
      throw DraftsError("no draft has an ID starting with '\(prefix)'")
    }
    guard matches.count == 1 else {
      let ids = matches.map { shortID($0.id) }.joined(separator: ", ")
      throw DraftsError("'\(prefix)' matches \(matches.count) drafts (\(ids)); type more of the ID")
    }
    return first.id
  }

  static func json(_ drafts: [Draft]) throws(DraftsError) -> String {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
    do {
      return String(decoding: try encoder.encode(drafts), as: UTF8.self)
    } catch {
      throw DraftsError("could not print the drafts as JSON: \(error)")
    }
  }

  static func table(_ drafts: [Draft]) -> String {
    guard !drafts.isEmpty else { return "No drafts." }
    var lines = ["ID        PIN  TEXT"]
    for draft in drafts {
      let firstLine =
        draft.body.split(separator: "\n", omittingEmptySubsequences: false)
        .first.map(String.init) ?? ""
      var text = firstLine.count > 60 ? String(firstLine.prefix(59)) + "…" : firstLine
      if firstLine != draft.body && firstLine.count <= 60 { text += " …" }
      if !draft.tags.isEmpty { text += "  #" + draft.tags.joined(separator: " #") }
      lines.append("\(shortID(draft.id))  \(draft.pinned ? " * " : "   ")  \(text)")
    }
    return lines.joined(separator: "\n")
  }
}
