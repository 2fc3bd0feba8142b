import DraftsFeature
import Foundation
@_spi(Testing) import Keepsake

/// The scripted session whose system calls the power-loss campaign records: a first save, an
/// overwrite, a transaction, a migration that writes, a quarantine, a first save into a new
/// folder, and two preferences writes.
///
/// Each step is marked in the log where it begins and where it was acknowledged (its `save()`,
/// `update`, `replaceUnreadableData()` or `flush()` returned), and knows the files it writes and
/// their bytes once it was done.
struct PowerLossSession {
  /// One step of the session.
  struct Step: Sendable {
    /// What the step does, for reports.
    var name: String
    /// Each file the step writes (relative to the root), with its bytes once acknowledged.
    var writes: [String: Data]
    /// The log's marks around the step.
    var begin: String { "begin \(name)" }
    var acknowledged: String { "acknowledged \(name)" }
  }

  /// The drafts file of the first save, the overwrite and the transaction.
  static let drafts = "drafts.json"
  /// A version 1 drafts file, migrated when loaded and written back as version 3.
  static let migrated = "migrated.json"
  /// A damaged drafts file, set aside by `replaceUnreadableData()`.
  static let damaged = "damaged.json"
  /// A drafts file in a folder that does not exist yet.
  static let inbox = "inbox/drafts.json"
  /// A preferences suite.
  static let preferences = "preferences.json"
  /// The drafts files the session writes through keys.
  static let keyFiles = [drafts, migrated, damaged, inbox]

  /// The bytes of the damaged file: the first half of a version 3 file.
  static let damagedBytes: Data = {
    let v3 = Fixtures.all.first { $0.name == "drafts-v3.json" }?.bytes ?? Data("{".utf8)
    return v3.prefix(v3.count / 2)
  }()

  /// The version 1 fixture.
  static let version1Bytes =
    Fixtures.all.first { $0.name == "drafts-v1.json" }?.bytes ?? Data("[]".utf8)

  let root: URL
  let recorder: SystemCallRecorder
  let fileSystem: any FileSystem

  /// Puts the files the session starts from under the root (not recorded: they are on disk
  /// before it starts).
  func seed() throws {
    try Self.version1Bytes.write(to: url(Self.migrated))
    try Self.damagedBytes.write(to: url(Self.damaged))
  }

  /// Runs every step through `fileSystem`, marking each in the recorder's log.
  ///
  /// - Throws: The first error of a step: the session must succeed for its log to mean
  ///   anything.
  func run() async throws -> [Step] {
    let context = StorageContext(
      name: "power-loss session", fileSystem: fileSystem, isIsolated: false
    ) { _ in PreferencesStores.inMemory() }
    var steps: [Step] = []
    func step(
      _ name: String, writes files: [String], _ body: () async throws -> Void
    ) async throws {
      let step = Step(name: name, writes: [:])
      recorder.mark(step.begin)
      try await body()
      recorder.mark(step.acknowledged)
      var done = step
      for file in files { done.writes[file] = try Data(contentsOf: url(file)) }
      steps.append(done)
    }
    func open(_ file: String) -> Shared<[Draft]> {
      StorageContext.withValue(context) {
        // NB: an hour between background saves: only the session's own calls write.
        Shared(
          .fileStorage(url(file), format: DraftsFormat.self, saveInterval: .seconds(3600)),
          default: [])
      }
    }

    let drafts = open(Self.drafts)
    try await step("first save", writes: [Self.drafts]) {
      drafts.withLock { $0.append(Draft(id: Self.id(1), body: "Primer borrador ✍️")) }
      try await drafts.save()
    }
    try await step("overwrite", writes: [Self.drafts]) {
      drafts.withLock {
        $0.append(Draft(id: Self.id(2), body: String(repeating: "Segunda línea. ", count: 400)))
      }
      try await drafts.save()
    }
    try await step("transaction", writes: [Self.drafts]) {
      // NB: `withTransaction`, not `update`: in debug builds `update` traps now and then
      // ("closure argument was escaped in withoutActuallyEscaping block"); both take the lock,
      // reload, change and write durably the same way.
      try await drafts.withTransaction { drafts.withLock { $0[0].pinned = true } }
    }
    try await step("migration that writes", writes: [Self.migrated]) {
      let migrated = open(Self.migrated)
      if let error = migrated.loadError { throw error }
      try await migrated.save()
    }
    try await step("quarantine", writes: [Self.damaged]) {
      let damaged = open(Self.damaged)
      guard damaged.loadError != nil else { throw SessionError("the damaged file loaded") }
      damaged.withLock { $0 = [Draft(id: Self.id(3), body: "Empezar de nuevo")] }
      _ = try await damaged.replaceUnreadableData()
    }
    try await step("first save in a new folder", writes: [Self.inbox]) {
      let inbox = open(Self.inbox)
      inbox.withLock { $0.append(Draft(id: Self.id(4), body: "Bandeja nueva 📥", tags: ["x"])) }
      try await inbox.save()
    }
    let suite = PreferencesStores.file(at: url(Self.preferences), fileSystem: fileSystem)
    try await step("preferences write", writes: [Self.preferences]) {
      suite.set(.string("dark"), forKey: "theme")
      try suite.flush()
    }
    try await step("preferences overwrite", writes: [Self.preferences]) {
      suite.set(.int(14), forKey: "fontSize")
      try suite.flush()
    }
    return steps
  }

  func url(_ relative: String) -> URL { root.appendingPathComponent(relative) }

  static func id(_ index: Int) -> UUID {
    UUID(uuidString: String(format: "0D4E5F60-7A8B-4C9D-8E0F-%012X", index)) ?? UUID()
  }
}

/// The session could not run as scripted.
struct SessionError: Error, CustomStringConvertible {
  var description: String
  init(_ description: String) { self.description = description }
}
