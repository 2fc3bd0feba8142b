import Foundation

extension SharedKey {
  /// A value kept in the file at `url` in a versioned format: an envelope with a version, read
  /// through the format's migration chain and always written in its current version.
  ///
  /// ```swift
  /// extension SharedKey where Self == FileStorageKey<[Draft]> {
  ///   static var drafts: Self { .fileStorage(draftsURL, format: DraftsFormat.self) }
  /// }
  /// ```
  ///
  /// A file from a newer version of the app, or one that fails to migrate, sets
  /// ``Shared/loadError`` to a ``SharedLoadError`` wrapping the ``FormatError``, and the file is
  /// never written over (data-safety rules "A file Keepsake cannot read is never overwritten" and
  /// "A version from the future is refused, not guessed"; see the Data safety article).
  ///
  /// When the value is an array, reading a current-version file again decodes only the elements
  /// whose bytes changed since the key last read it, as with `.fileStorage(url)`.
  ///
  /// A file larger than `maximumFileSize` is refused unread (rule "Bad files get a clear error at
  /// once"), and a value that encodes to more is never written. A pending change merges with
  /// another process's change of the file as `merge` says; by default ``SharedMergeable`` values
  /// merge and others keep both versions (data-safety rule "Processes that share a file lose
  /// nothing"; see the Data safety article).
  public static func fileStorage<Format: VersionedFormat>(
    _ url: URL, format: Format.Type, saveInterval: Duration = .milliseconds(500),
    maximumFileSize: Int = FileSystemLimits.defaultMaximumFileSize,
    loadsInBackground: Bool = false,
    merge: SharedMerge<Format.Value>? = nil
  ) -> Self where Self == FileStorageKey<Format.Value> {
    // NB: two memos per key: when the content is an array, writing it encodes only the
    // elements that changed, and reading a current-version file again decodes only those whose
    // bytes changed (see `.fileStorage(url)`).
    let memo = CodingMemo()
    let encodingMemo = CodingMemo()
    var key = FileStorageKey(
      url: url, saveInterval: saveInterval, maximumFileSize: maximumFileSize,
      loadsInBackground: loadsInBackground, merge: merge,
      decode: { data in try Format.decode(data, memo: memo) },
      encode: { value in try Format.encode(value, memo: encodingMemo) })
    // In a synced folder the envelope carries the file's ancestry (see `Ancestry`).
    key.sync.encodeWithAncestry = { value, ancestry in try Format.encode(value, ancestry: ancestry)
    }
    return key
  }
}
