extension FileStorageKey: CustomStringConvertible {
  /// The key as an app writes it, in swift-sharing's shape:
  /// `.fileStorage(file:///path/to/file.json)`.
  public var description: String { ".fileStorage(\(String(reflecting: url)))" }
}
