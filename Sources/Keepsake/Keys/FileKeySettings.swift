import Foundation

/// What a file key is made with: the same for every copy of the key and every reference of it.
final class FileKeySettings<Value: Sendable>: Sendable {
  let url: URL
  let interval: Duration
  let maximumFileSize: Int
  let loadsInBackground: Bool
  let merge: SharedMerge<Value>?
  /// Whether a merge is made on the stored JSON, field by field (see ``SharedFieldMergeable``).
  let mergesByField: Bool
  let decode: @Sendable (Data) throws -> Value
  let encode: @Sendable (Value) throws -> Data

  init(
    url: URL, interval: Duration, maximumFileSize: Int, loadsInBackground: Bool,
    merge: SharedMerge<Value>?, mergesByField: Bool = false,
    decode: @escaping @Sendable (Data) throws -> Value,
    encode: @escaping @Sendable (Value) throws -> Data
  ) {
    self.mergesByField = mergesByField
    self.url = url
    self.interval = interval
    self.maximumFileSize = maximumFileSize
    self.loadsInBackground = loadsInBackground
    self.merge = merge
    self.decode = decode
    self.encode = encode
  }
}
