import Foundation
import Keepsake

/// Two storage contexts over one in-memory file system: two processes sharing a file, in one test.
///
/// Each context has its own references, as each process does; the disk, its lock files and its
/// watchers are shared, as a real disk's are.
struct TwoContexts {
  let disk = InMemoryFileSystem()
  let first: StorageContext
  let second: StorageContext

  /// The clock both processes' coalesced saves run on, moved only by a test.
  ///
  /// A change a test keeps pending stays pending however long the test runs.
  let clock = StorageClock.manual()

  init() {
    first = .inMemory(name: "process A", fileSystem: disk, clock: clock)
    second = .inMemory(name: "process B", fileSystem: disk, clock: clock)
  }

  /// A `Shared` of `key` as the first process sees it.
  func inFirst<Value>(_ key: some SharedKey<Value>, default value: Value) -> Shared<Value> {
    StorageContext.withValue(first) { Shared(key, default: value) }
  }

  /// A `Shared` of `key` as the second process sees it.
  func inSecond<Value>(_ key: some SharedKey<Value>, default value: Value) -> Shared<Value> {
    StorageContext.withValue(second) { Shared(key, default: value) }
  }

  /// The bytes of `url`, decoded.
  func stored<Value: Decodable>(_ type: Value.Type, at url: URL) throws -> Value? {
    guard let data = try disk.contents(of: url) else { return nil }
    return try JSONDecoder().decode(type, from: data)
  }
}

/// An element with an identity, as apps keep them: a note.
struct Note: Codable, Equatable, Identifiable, Sendable {
  var id: Int
  var text: String
  /// Set by tests of merges field by field; absent from the bytes when `nil`.
  var pinned: Bool? = nil
}

/// A value with no meaningful merge.
struct Settings: Codable, Equatable, Sendable {
  var theme: String
  var fontSize: Int
}
