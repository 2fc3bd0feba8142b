import Foundation
import KeepsakeTesting
import Testing

@testable import Keepsake

/// Lets two parallel tests wait until both have written, so each checks its values while the
/// other's are in place.
///
/// NB: bounded: when the other test does not run at the same time (a filtered or serial run),
/// the wait ends after 5 seconds and the test checks its own values alone.
actor Rendezvous {
  static let shared = Rendezvous()
  private var arrived: Set<String> = []
  /// Who waits, for whom.
  private var waiting: [UUID: (other: String, continuation: CheckedContinuation<Void, Never>)] =
    [:]

  func arrive(_ name: String, waitingFor other: String) async {
    arrived.insert(name)
    for (id, waiter) in waiting where waiter.other == name {
      waiting.removeValue(forKey: id)?.continuation.resume()
    }
    guard !arrived.contains(other) else { return }
    let id = UUID()
    let timer = Task {
      try? await Task.sleep(for: .seconds(5))
      self.stopWaiting(id)
    }
    await withCheckedContinuation { waiting[id] = (other, $0) }
    timer.cancel()
  }

  private func stopWaiting(_ id: UUID) {
    waiting.removeValue(forKey: id)?.continuation.resume()
  }
}

@Suite("Isolation under test")
struct TestIsolationTests {
  static let fileURL = URL(fileURLWithPath: "/var/isolation/probe.json")

  func writeAndCheck(_ value: Int, me: String, other: String) async throws {
    @Shared(.inMemory("isolation")) var memory = 0
    @Shared(.fileStorage(Self.fileURL)) var file = 0
    @Shared(.appStorage("isolation")) var preference = 0
    #expect(memory == 0 && file == 0 && preference == 0, "each test starts fresh")
    $memory.withLock { $0 = value }
    $file.withLock { $0 = value }
    $preference.withLock { $0 = value }
    try await $file.flush()
    await Rendezvous.shared.arrive(me, waitingFor: other)
    #expect(memory == value && file == value && preference == value)
    @Shared(.inMemory("isolation")) var later = -1
    #expect(later == value, "a key created later in the same test sees the test's value")
  }

  @Test("A test's writes are its own (first of two parallel tests)")
  func first() async throws { try await writeAndCheck(1, me: "first", other: "second") }

  @Test("A test's writes are its own (second of two parallel tests)")
  func second() async throws { try await writeAndCheck(2, me: "second", other: "first") }

  @Test("Each argument of a parameterized test starts fresh", arguments: [10, 20, 30])
  func parameterized(_ value: Int) {
    @Shared(.inMemory("parameterized")) var memory = 0
    #expect(memory == 0)
    $memory.withLock { $0 = value }
    #expect(memory == value)
  }

  @Test("Under test, storage is isolated and the real locations stay untouched")
  func realLocationsUntouched() async throws {
    let home = FileManager.default.homeDirectoryForCurrentUser
    let probe = home.appendingPathComponent(".keepsake-probe-\(UUID().uuidString).json")
    @Shared(.fileStorage(probe)) var value = 0
    $value.withLock { $0 = 1 }
    try await $value.save()
    #expect($value.storageContext.isIsolated)
    #expect(!FileManager.default.fileExists(atPath: probe.path))
    let suite = "keepsake-probe-\(UUID().uuidString)"
    @Shared(.appStorage("probe", suiteName: suite)) var flag = false
    $flag.withLock { $0 = true }
    try StorageContext.current.preferences(suiteName: suite).flush()
    let realSuite = FilePreferences.defaultURL(suiteName: suite)
    #expect(!FileManager.default.fileExists(atPath: realSuite.path))
  }

  @Test("A detached task with no current test still never reaches live storage")
  func detachedWithoutReference() async {
    let context = await Task.detached { StorageContext.current }.value
    #expect(context.isIsolated)
    #expect(context !== StorageContext.live)
  }

  @Test("Confined storage opts into the real disk, under a temporary folder removed after")
  func confinedStorageOptIn() async throws {
    let used = try await withConfinedStorage { folder in
      let url = URL(fileURLWithPath: "/etc/keepsake/opt-in.json")
      @Shared(.fileStorage(url)) var value = 0
      $value.withLock { $0 = 5 }
      try await $value.save()
      let placed = folder.appendingPathComponent("etc/keepsake/opt-in.json")
      #expect(try Data(contentsOf: placed) == Data("5".utf8))
      #expect(!FileManager.default.fileExists(atPath: url.path))
      return folder
    }
    #expect(!FileManager.default.fileExists(atPath: used.path), "the folder is removed after")
  }

  @Test(
    "In-memory and confined contexts are isolated storage; the live one is not",
    arguments: [
      (StorageContext.inMemory(), true),
      (StorageContext.confined(to: FileManager.default.temporaryDirectory), true),
      (StorageContext.live, false),
    ])
  func isolatedContexts(context: StorageContext, isIsolated: Bool) {
    #expect(context.isIsolated == isIsolated)
  }
}
