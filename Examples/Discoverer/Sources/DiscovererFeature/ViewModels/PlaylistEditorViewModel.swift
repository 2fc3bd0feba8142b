import Foundation
import Observation

/// The playlist editor: create a playlist, open one, add its tracks to the library, remove
/// tracks from it.
///
/// Writes are not optimistic: the list changes only once the service confirmed the write. A
/// failed write leaves the list as it was and shows a ``toast`` saying what did not happen and
/// why; a cancelled write shows nothing. Tracks are added to the library in batches of
/// ``batchSize`` (with ``Swift/Array/chunked(into:)``), so a long selection is several small
/// requests and a failure midway reports how many made it.
///
/// ```swift
/// let editor = PlaylistEditorViewModel(service: service)
/// await editor.open(playlist)
/// await editor.removeTracks([track.id])
/// if let toast = editor.toast { /* show it */ }
/// ```
///
/// `@MainActor`: it publishes state for SwiftUI.
@MainActor
@Observable
public final class PlaylistEditorViewModel {
  /// How many tracks go in one ``MusicService/addTracksToLibrary(_:)`` request by default.
  nonisolated public static let defaultBatchSize = 10

  /// The playlist being edited, or `nil` before one is opened or created.
  public private(set) var playlist: Playlist?
  /// The playlist's tracks, in play order.
  public private(set) var tracks: [Track] = []
  /// Whether the playlist's tracks are loading, shown, or could not be loaded.
  public private(set) var state: LoadState = .idle
  /// A short message about a write that failed, or `nil`.
  public private(set) var toast: String?
  /// Whether a write is in flight; further writes are ignored until it ends.
  public private(set) var isSaving = false
  /// The tracks this editor has added to the library so far.
  public private(set) var addedToLibrary: Set<TrackID> = []

  /// How many tracks go in one library request.
  public let batchSize: Int

  @ObservationIgnored private let service: any MusicService

  /// Creates an editor with no playlist open.
  ///
  /// - Precondition: `batchSize` is greater than zero.
  public init(service: any MusicService, batchSize: Int = defaultBatchSize) {
    precondition(batchSize > 0, "A batch size must be above zero, got \(batchSize).")
    self.service = service
    self.batchSize = batchSize
  }

  /// Opens `playlist` and loads its tracks.
  public func open(_ playlist: Playlist) async {
    self.playlist = playlist
    tracks = []
    state = .idle
    await reload()
  }

  /// Loads the open playlist's tracks again.
  ///
  /// Does nothing without an open playlist or while loading.
  public func reload() async {
    guard let playlist, state != .loading else { return }
    let previousState = state
    state = .loading
    do {
      let fetched = try await service.fetchPlaylistContents(playlist.id)
      try Task.checkCancellation()
      tracks = fetched
      self.playlist?.trackIDs = fetched.map(\.id)
      state = .loaded
    } catch let error where FailureReason.isCancellation(error) {
      state = previousState
    } catch {
      state = .failed(FailureReason.text(for: error))
    }
  }

  /// Creates an empty playlist named `name` and opens it.
  ///
  /// - Returns: Whether the playlist was created. On failure the open playlist stays open and
  ///   ``toast`` says why.
  @discardableResult
  public func createPlaylist(named name: String) async -> Bool {
    guard !isSaving else { return false }
    isSaving = true
    defer { isSaving = false }
    do {
      let created = try await service.createPlaylist(named: name)
      try Task.checkCancellation()
      playlist = created
      tracks = []
      state = .loaded
      toast = nil
      return true
    } catch let error where FailureReason.isCancellation(error) {
      return false
    } catch {
      toast = "Couldn't create the playlist \"\(name)\". \(FailureReason.text(for: error))"
      return false
    }
  }

  /// Adds tracks to the listener's library, ``batchSize`` at a time.
  ///
  /// Stops at the first failed batch; ``addedToLibrary`` then holds the batches that made it and
  /// ``toast`` says how many that was. The playlist itself is not changed either way.
  public func addToLibrary(_ trackIDs: [TrackID]) async {
    guard !isSaving, !trackIDs.isEmpty else { return }
    isSaving = true
    defer { isSaving = false }
    var added = 0
    for batch in trackIDs.chunked(into: batchSize) {
      // Once the listener has moved on, send no further batches.
      guard !Task.isCancelled else { return }
      do {
        try await service.addTracksToLibrary(batch)
        addedToLibrary.formUnion(batch)
        added += batch.count
      } catch let error where FailureReason.isCancellation(error) {
        return
      } catch {
        let reason = FailureReason.text(for: error)
        toast =
          added == 0
          ? "Couldn't add \(Self.tracks(trackIDs.count)) to your library. \(reason)"
          : "Added \(added) of \(trackIDs.count) tracks to your library. \(reason)"
        return
      }
    }
    toast = nil
  }

  /// Removes tracks from the open playlist, once the service confirmed it.
  ///
  /// On failure the list stays as it was and ``toast`` says why.
  public func removeTracks(_ trackIDs: [TrackID]) async {
    guard let playlist, !isSaving, !trackIDs.isEmpty else { return }
    isSaving = true
    defer { isSaving = false }
    do {
      try await service.removeTracksFromPlaylist(trackIDs, playlistID: playlist.id)
      // NB: no cancellation check here: the service has already removed the tracks, so the
      // list must show it even if the listener moved on meanwhile.
      let removed = Set(trackIDs)
      tracks.removeAll { removed.contains($0.id) }
      self.playlist?.trackIDs.removeAll { removed.contains($0) }
      toast = nil
    } catch let error where FailureReason.isCancellation(error) {
      return
    } catch {
      toast =
        "Couldn't remove \(Self.tracks(trackIDs.count)) from \(playlist.name). "
        + FailureReason.text(for: error)
    }
  }

  /// Clears ``toast`` once the listener has seen it.
  public func dismissToast() {
    toast = nil
  }

  /// "1 track", "3 tracks".
  private static func tracks(_ count: Int) -> String {
    count == 1 ? "1 track" : "\(count) tracks"
  }
}
