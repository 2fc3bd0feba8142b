import Foundation

// swift-sharing's spellings of a file key with its own coding, so code written for it compiles
// unchanged. The key is a `FileStorageKey` like any other: it never overwrites a file it cannot
// read, writes durably and merges with other processes.

extension SharedKey {
  /// A value kept as JSON in the file at `url`, read with `decoder` and written with `encoder`:
  /// swift-sharing's `fileStorage(_:decoder:encoder:)`.
  ///
  /// Prefer `.fileStorage(url)`, which uses Keepsake's own JSON codec (faster, and its output
  /// sorted, so equal values give equal bytes), or `.fileStorage(url, format:)` for data that
  /// must survive model changes. Nonisolated.
  ///
  /// - Parameters:
  ///   - url: The file.
  ///   - decoder: Reads the file; data it cannot decode is reported and left untouched.
  ///   - encoder: Writes the file.
  @_disfavoredOverload
  public static func fileStorage<Value: Codable & Sendable>(
    _ url: URL, decoder: JSONDecoder = JSONDecoder(), encoder: JSONEncoder = JSONEncoder()
  ) -> Self where Self == FileStorageKey<Value> {
    FileStorageKey(
      url: url,
      decode: { data in
        // NB: the same guard as Keepsake's own decoding: input known to crash JSONDecoder is
        // refused first.
        if data.last == UInt8(ascii: "[") { return try JSONCoding.decode(Value.self, from: data) }
        return try decoder.decode(Value.self, from: data)
      },
      encode: { value in try encoder.encode(value) })
  }

  /// A value kept in the file at `url`, turned into bytes and back by `encode` and `decode`:
  /// swift-sharing's `fileStorage(_:decode:encode:)`.
  ///
  /// Data `decode` cannot read is reported and left untouched. Nonisolated.
  @_disfavoredOverload
  public static func fileStorage<Value: Sendable>(
    _ url: URL, decode: @escaping @Sendable (Data) throws -> Value,
    encode: @escaping @Sendable (Value) throws -> Data
  ) -> Self where Self == FileStorageKey<Value> {
    FileStorageKey(url: url, decode: decode, encode: encode)
  }
}
