import DraftsFeature
import Foundation
@_spi(Testing) import Keepsake

/// One scripted session of loads, mutations and saves on a faulty in-memory file system, checking
/// the file after every step.
struct FaultSession {
  let fileSystem: @Sendable (InMemoryFileSystem) -> any FileSystem
  let url = FaultSweepCampaign.url

  struct Outcome {
    var operations = 0
    var hit: (operation: FileOperation, path: String)?
    /// A fault in the cleanup of abandoned temporary files, which Keepsake ignores on purpose.
    var toleratedSilently = false
    /// Whether the file was torn, lost or held a value never saved after some step.
    var damaged = false
    var unreported = false
    var recovered = true
    var problems: [String] = []
  }

  /// The bytes the disk starts with: the version 2 fixture, migrated on load.
  static let initialBytes =
    Fixtures.all.first { $0.name == "drafts-v2.json" }?.bytes ?? Data("[]".utf8)

  func run(failing target: Int?, with fault: FileSystemFault) async -> Outcome {
    let disk = InMemoryFileSystem()
    disk.setContents(Self.initialBytes, at: url, notifyingWatchers: false)
    let counter = FaultCounter(failing: target, with: fault)
    disk.faultHandler = counter.handler
    let context = StorageContext.inMemory(name: "fault sweep", fileSystem: fileSystem(disk))
    var outcome = Outcome()
    await StorageContext.withValue(context) {
      await script(disk: disk, counter: counter, outcome: &outcome)
    }
    return outcome
  }

  private func script(
    disk: InMemoryFileSystem, counter: FaultCounter, outcome: inout Outcome
  ) async {
    var saved: [[Draft]] = []
    if let initial = try? DraftsFormat.decode(Self.initialBytes) { saved.append(initial) }
    // NB: an hour between background saves, so no timer adds operations in the middle of a
    // session: the k-th operation is the same in every run.
    @Shared(.fileStorage(url, format: DraftsFormat.self, saveInterval: .seconds(3600)))
    var drafts: [Draft] = []
    var reported = $drafts.loadError != nil
    check(disk, saved, "load", &outcome)

    func edit(_ body: String) {
      $drafts.withLock { drafts in
        drafts.append(Draft(id: Self.id(drafts.count), body: body, tags: ["fallo"]))
        if !drafts.isEmpty { drafts[0].pinned.toggle() }
      }
      saved.append(drafts)
    }

    edit("Primera edición tras la carga ✍️")
    do { try await $drafts.save() } catch { reported = true }
    check(disk, saved, "save 1", &outcome)

    edit("Segunda edición, guardada con flush")
    do { try await $drafts.flush() } catch { reported = true }
    if $drafts.saveError != nil { reported = true }
    check(disk, saved, "flush", &outcome)

    do { try await $drafts.load() } catch { reported = true }
    // NB: a change still pending (a fault kept it from being saved) meets the file on load: the
    // merge is saved, so the value after the load is one the session saved.
    saved.append(drafts)
    check(disk, saved, "reload", &outcome)

    edit("Tercera edición 🧾")
    do { try await $drafts.save() } catch { reported = true }
    check(disk, saved, "save 2", &outcome)

    outcome.operations = counter.count
    outcome.hit = counter.hit
    if let hit = counter.hit {
      // NB: listing the folder and removing a dead writer's temporary file are cleanup when a key
      // starts; Keepsake ignores their failures on purpose (a leftover temporary file is never
      // read as the data), so nothing needs to be reported.
      if hit.operation == .list || hit.operation == .remove {
        outcome.toleratedSilently = !reported
      } else if !reported {
        outcome.unreported = true
        outcome.problems.append("the fault was not reported by a throw, saveError or loadError")
      }
    }

    // The fault has cleared (it fails one operation only): the session must recover.
    do {
      if $drafts.loadError != nil { try await $drafts.load() }
      edit("Después del fallo")
      try await $drafts.save()
      let stored = try disk.contents(of: url).map { try DraftsFormat.decode($0) }
      if stored != drafts {
        outcome.recovered = false
        outcome.problems.append("after recovery the file does not hold the value in memory")
      }
    } catch {
      outcome.recovered = false
      outcome.problems.append("recovery failed: \(error)")
    }
    let temporary = disk.files.keys.filter { $0.contains(".keepsake-tmp-") }
    if !temporary.isEmpty {
      outcome.problems.append("temporary files left: \(temporary.sorted())")
    }
  }

  /// The file must exist and decode to the initial value or one the session saved.
  private func check(
    _ disk: InMemoryFileSystem, _ saved: [[Draft]], _ step: String, _ outcome: inout Outcome
  ) {
    guard let bytes = disk.files[url.standardizedFileURL.path] else {
      outcome.damaged = true
      outcome.problems.append("after \(step): the file is gone")
      return
    }
    do {
      let value = try DraftsFormat.decode(bytes)
      if !saved.contains(value) {
        outcome.damaged = true
        outcome.problems.append("after \(step): the file holds a value never saved")
      }
    } catch {
      outcome.damaged = true
      outcome.problems.append("after \(step): torn file (\(bytes.count) bytes): \(error)")
    }
  }

  private static func id(_ index: Int) -> UUID {
    UUID(uuidString: String(format: "5D2E8A41-9C3B-4A7D-8E6F-%012X", index)) ?? UUID()
  }
}
