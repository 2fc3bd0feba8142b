import Foundation
import Synchronization

/// Two or three devices keep one folder in step with real Syncthing daemons on loopback, while
/// processes on each device edit its files through Keepsake and the links between the devices
/// go down and come back at random: every acknowledged edit must end in every device's file
/// (see "Devices" in the Data safety article).
///
/// The run:
/// 1. `SyncthingCluster` starts the daemons (free ports, state in a scratch folder, nothing off
///    the machine) and waits until they are connected;
/// 2. on each device, `processesPerDevice` processes (`keepsake-stress devices-child`, with the
///    device's own `XDG_STATE_HOME`) add, edit and delete items of their own in `items.json`,
///    set the notes of another process's items (two writers, two fields of one item), and now
///    and then set `settings.json`, a value that cannot merge; the last device's last process
///    runs an older version of the app, whose items have no note: its saves and merges must keep
///    the others' notes; the device before it runs, as its last process, a version one format
///    version older, which cannot read the newer file: its changes are kept beside the file,
///    and the newer processes must merge them;
/// 3. meanwhile the campaign pauses and resumes the links between devices at random, so that
///    the devices change the files while apart and the engine makes conflict copies;
/// 4. the links come back, and the campaign waits until the daemons are quiet and every device's
///    `items.json` is the same with no copy beside it;
/// 5. `DevicesChecker` compares every device's file with the processes' acknowledged edits.
///
/// With ``Configuration/writer`` `.plain`, the processes write with Foundation alone and never
/// look at the copies: the same run must lose edits, and the campaign must see it.
public struct DevicesCampaign: Sendable {
  /// The settings of a run.
  public struct Configuration: Sendable {
    /// The `keepsake-stress` executable, started as the devices' processes.
    public var executable: String
    /// Devices (2 or 3).
    public var devices = 2
    /// Processes editing on each device.
    public var processesPerDevice = 2
    /// How long the processes edit.
    public var seconds = 30.0
    /// Makes the edits and the links' ups and downs repeatable.
    public var seed: UInt64 = 1
    /// How the processes write.
    public var writer = DevicesChild.Mode.library
    /// How long the devices may take to agree once they are all connected again.
    public var convergenceTimeout = 120.0
    /// How long the campaign waits, when the devices agree on a file that lacks an edit, before
    /// it judges again: a device's save that another's version replaced may wait for a base
    /// (`SyncOptions.baseWait`, 20 s, and a scan's retry) before it is merged back, and an app
    /// that keeps running merges it then.
    public var recheckAfter = 30.0
    /// The `maxConflicts` of the Syncthing folder (Syncthing's usual 10).
    public var maxConflicts = 10
    /// Every this many edits, one is left to the coalesced save (pending while the engine may be
    /// replacing the file) and acknowledged by the flush after it; 0: every edit is saved.
    public var pendingEvery = 3
    /// Whether the last device's last process runs an older model, without the items' notes.
    public var olderModel = true
    /// Whether a process runs the format's version 1, which cannot read the others' files: the
    /// last process of the device before the last.
    public var olderFormat = true

    /// The default run, starting `executable` as the processes.
    public init(executable: String) { self.executable = executable }
  }

  public var configuration: Configuration

  public init(_ configuration: Configuration) { self.configuration = configuration }

  /// Whether Syncthing is installed here.
  public static var isAvailable: Bool { SyncthingCluster.executable != nil }

  /// Runs the campaign and reports the figures; a missing Syncthing is a failure that says how
  /// to install it.
  public func run() -> CampaignReport {
    let started = ContinuousClock.now
    var figures: [CampaignReport.Figure] = []
    var failures: [String] = []
    let settings =
      "\(configuration.devices) devices × \(configuration.processesPerDevice) processes, "
      + "\(Int(configuration.seconds)) s of edits, \(configuration.writer.rawValue) writer, "
      + "seed \(configuration.seed)"
    do {
      let scratch = try ScratchFolder(campaign: "devices")
      // For investigating a run: the folders and the devices' version stores stay.
      let keeps = ProcessInfo.processInfo.environment["KEEPSAKE_DEVICES_KEEP"] != nil
      defer { if !keeps { scratch.remove() } }
      if keeps { figures.append(.init("kept at \(scratch.url.path)", 0)) }
      SyncthingCluster.stopsDaemonsOnSignals()
      let (cluster, base, firstFailure) = try SyncthingCluster.connected(
        count: configuration.devices, in: scratch.url, maxConflicts: configuration.maxConflicts)
      defer { cluster.stop() }
      if let firstFailure {
        figures.append(.init("set-ups tried again (the first: \(firstFailure))", 1))
      }
      try run(cluster, scratch: base, figures: &figures, failures: &failures)
    } catch {
      failures.append("the campaign could not run: \(error)")
    }
    return CampaignReport(
      campaign: "devices", settings: settings, figures: figures, failures: failures,
      seconds: started.duration(to: .now).seconds)
  }

  private func run(
    _ cluster: SyncthingCluster, scratch: URL, figures: inout [CampaignReport.Figure],
    failures: inout [String]
  ) throws {
    cluster.recordChildren()
    let stop = scratch.appendingPathComponent("stop")
    var children: [(device: Int, reader: ChildReader)] = []
    defer {
      _ = FileManager.default.createFile(atPath: stop.path, contents: nil)
      for child in children { child.reader.finish(timeout: 30) }
    }
    let modes = processModes(devices: cluster.devices.map(\.index))
    let noters = Self.noters(of: modes)
    for device in cluster.devices {
      let state = scratch.appendingPathComponent("dev\(device.index)/state")
      for process in 1...configuration.processesPerDevice {
        let name = "\(device.index).\(process)"
        let mode = modes.first { $0.name == name }?.mode ?? configuration.writer
        let notesOf = noters[name, default: []].joined(separator: ",")
        let child = try ChildProcess(
          executable: configuration.executable,
          arguments: [
            "devices-child", device.folder.path, "--device", "\(device.index)", "--process",
            "\(process)", "--seconds", "\(configuration.seconds)", "--seed",
            "\(configuration.seed)", "--mode", mode.rawValue, "--stop-file",
            stop.path, "--pending-every", "\(configuration.pendingEvery)", "--notes-of", notesOf,
          ],
          environment: ["XDG_STATE_HOME": state.path])
        children.append((device.index, ChildReader(child)))
      }
    }
    for child in children where !child.reader.waitFor("ready", timeout: 60) {
      failures.append(
        "a process of dev\(child.device) did not start: \(child.reader.lines.suffix(2))")
    }
    var random = SeededGenerator(seed: configuration.seed)
    let copiesSeen = NameSet()
    let pairs = cluster.devices.indices.flatMap { a in
      cluster.devices.indices.filter { $0 > a }.map { (a, $0) }
    }
    var down: Set<Int> = []
    var offlinePeriods = 0
    let editsEnd = ContinuousClock.now + .seconds(configuration.seconds)
    var nextToggle = ContinuousClock.now + .milliseconds(Int.random(in: 500...1500, using: &random))
    while ContinuousClock.now < editsEnd {
      if ContinuousClock.now >= nextToggle {
        let pair = Int.random(in: 0..<pairs.count, using: &random)
        let up = down.contains(pair)
        try cluster.setLink(pairs[pair].0, pairs[pair].1, up: up)
        if up {
          down.remove(pair)
        } else {
          down.insert(pair)
          offlinePeriods += 1
        }
        nextToggle = .now + .milliseconds(Int.random(in: 2_000...5_000, using: &random))
      }
      record(cluster, into: copiesSeen)
      Thread.sleep(forTimeInterval: 0.1)
    }
    for pair in down { try cluster.setLink(pairs[pair].0, pairs[pair].1, up: true) }
    let resumed = ContinuousClock.now
    for child in children where !child.reader.waitFor("edited", timeout: 30) {
      failures.append("a process of dev\(child.device) did not finish its edits")
    }
    cluster.rescanAll()
    var converged = waitForConvergence(cluster, copiesSeen: copiesSeen)
    // NB: only a run that would fail waits the longer time, so a passing run stays short.
    var rechecked = 0
    if converged, configuration.writer == .library,
      verdict(of: cluster, children: children).lostEdits.isEmpty == false
    {
      rechecked = 1
      Thread.sleep(forTimeInterval: configuration.recheckAfter)
      converged = waitForConvergence(cluster, copiesSeen: copiesSeen)
    }
    let convergeTime = resumed.duration(to: .now).seconds
    if !converged {
      failures.append(
        "the devices did not agree within \(Int(configuration.convergenceTimeout)) s of the "
          + "links coming back")
    }
    _ = FileManager.default.createFile(atPath: stop.path, contents: nil)
    for child in children {
      child.reader.finish(timeout: 30)
      if child.reader.ending?.succeeded != true || !child.reader.lines.contains("done") {
        failures.append(
          "a process of dev\(child.device) failed (\(child.reader.ending.map { "\($0)" } ?? "no end")): "
            + "\(child.reader.lines.suffix(2))")
      }
    }
    if let log = ProcessInfo.processInfo.environment["KEEPSAKE_DEVICES_LOG"] {
      // For investigating a run: every process's lines, by device.
      let text = children.map { child in
        child.reader.lines.map { "dev\(child.device) \($0)" }.joined(separator: "\n")
      }.joined(separator: "\n")
      try? Data(text.utf8).write(to: URL(fileURLWithPath: log))
    }
    let verdict = verdict(of: cluster, children: children)
    let engineCopies = copiesSeen.all
    let library = configuration.writer == .library
    figures += [
      .init("edits acknowledged", verdict.acknowledged),
      .init("changes kept beside the file by the older format", verdict.kept),
      .init("offline periods", offlinePeriods),
      .init("conflict copies made by the engine", engineCopies.count),
      .init("conflict copies merged", verdict.copiesMerged.count),
      .init("overwritten saves merged back", verdict.savesMergedBack),
      .init("settings conflicts kept and reported", verdict.settingsConflictsReported),
      .init("parts decided by the merge policy (reported)", verdict.decidedByPolicy.count),
      .init("time to converge (ms)", Int((convergeTime * 1000).rounded())),
      .init("judged again after the wait for merges back", rechecked),
      .init("devices whose file differs", verdict.differingDevices, isLoss: true),
      .init("unreadable files", verdict.unreadableFiles, isLoss: true),
      .init("items never added", verdict.unknownItems.count, isLoss: true),
      .init(
        "conflict copies left beside items.json", verdict.itemCopiesLeft.count, isLoss: library),
      .init("settings copies not reported", verdict.unreportedSettingsCopies.count, isLoss: true),
      .init(
        "kept changes left beside items.json", verdict.keptChangesLeft.count, isLoss: library),
      .init("lost edits", verdict.lostEdits.count, isLoss: true),
    ]
    if !verdict.unreportedSettingsCopies.isEmpty {
      failures.append("settings copies not reported: \(verdict.unreportedSettingsCopies.prefix(3))")
    }
    if !verdict.lostEdits.isEmpty {
      failures.append("lost edits of items \(verdict.lostEdits.prefix(5))")
      failures += verdict.explanations
    }
    if !verdict.itemCopiesLeft.isEmpty && library {
      failures.append("copies left: \(verdict.itemCopiesLeft.prefix(3))")
    }
    if !verdict.keptChangesLeft.isEmpty && library {
      failures.append("kept changes never merged: \(verdict.keptChangesLeft.prefix(3))")
    }
  }

  /// How each process (`<device>.<process>`) writes, in order.
  private func processModes(devices: [Int]) -> [(name: String, mode: DevicesChild.Mode)] {
    let count = configuration.processesPerDevice
    var modes = devices.flatMap { device in
      (1...count).map { (name: "\(device).\($0)", mode: configuration.writer) }
    }
    guard configuration.writer == .library, !modes.isEmpty else { return modes }
    if configuration.olderModel { modes[modes.count - 1].mode = .older }
    // The last process of the device before the last.
    let olderFormat = modes.count - 1 - count
    if configuration.olderFormat && modes.indices.contains(olderFormat) {
      modes[olderFormat].mode = .olderFormat
    }
    return modes
  }

  /// Which owners' items each process notes: each newer process notes the items of the
  /// processes after it, up to the next newer one (round the ring), so every item's note has one
  /// author, never the item's own.
  static func noters(of modes: [(name: String, mode: DevicesChild.Mode)]) -> [String: [String]] {
    let newer = modes.indices.filter { modes[$0].mode == .library }
    var noters: [String: [String]] = [:]
    for (position, index) in newer.enumerated() {
      let next = newer[(position + 1) % newer.count]
      var owner = (index + 1) % modes.count
      while true {
        if owner != index { noters[modes[index].name, default: []].append(modes[owner].name) }
        if owner == next { break }
        owner = (owner + 1) % modes.count
      }
    }
    return noters
  }

  /// What `DevicesChecker` finds in the devices' folders now, against the processes' lines.
  private func verdict(
    of cluster: SyncthingCluster, children: [(device: Int, reader: ChildReader)]
  ) -> DevicesChecker.Verdict {
    let disks = cluster.devices.map { device in
      DevicesChecker.Disk(
        device: device.index,
        items: DevicesChecker.items(at: device.folder.appendingPathComponent("items.json")),
        names: (try? FileManager.default.contentsOfDirectory(atPath: device.folder.path)) ?? [],
        notes: DevicesChecker.notes(at: device.folder.appendingPathComponent("items.json")),
        copiedNotes: DevicesChecker.copiedNotes(in: device.folder))
    }
    return DevicesChecker(
      processes: children.map {
        DevicesChecker.Process(device: $0.device, lines: $0.reader.lines, times: $0.reader.times)
      },
      disks: disks
    ).check()
  }

  /// Waits until the daemons are quiet and, twice in a row, every device's items are the same
  /// (and, for Keepsake's writer, no copy is left beside `items.json`).
  private func waitForConvergence(
    _ cluster: SyncthingCluster, copiesSeen: NameSet
  ) -> Bool {
    let deadline = ContinuousClock.now + .seconds(configuration.convergenceTimeout)
    var agreed = 0
    while ContinuousClock.now < deadline {
      record(cluster, into: copiesSeen)
      let files = cluster.devices.map {
        DevicesChecker.items(at: $0.folder.appendingPathComponent("items.json"))
      }
      let copies = cluster.devices.flatMap { device in
        ((try? FileManager.default.contentsOfDirectory(atPath: device.folder.path)) ?? [])
          .filter {
            DevicesChecker.isEngineCopy($0, of: "items.json")
              || DevicesChecker.isKeptChange($0, of: "items.json")
          }
      }
      let same = files.allSatisfy { $0 != nil && $0 == files[0] }
      let clean = configuration.writer == .plain || copies.isEmpty
      if same && clean && cluster.isQuiet() {
        agreed += 1
        if agreed >= 2 { return true }
      } else {
        agreed = 0
      }
      Thread.sleep(forTimeInterval: 0.5)
    }
    return false
  }

  /// Notes every engine copy in the devices' folders now: the count of conflicts the engine
  /// made, seen without Keepsake's help.
  private func record(_ cluster: SyncthingCluster, into copies: NameSet) {
    for device in cluster.devices {
      let names = (try? FileManager.default.contentsOfDirectory(atPath: device.folder.path)) ?? []
      let found = names.filter(DevicesChecker.isEngineCopy)
      copies.insert(found)
    }
  }
}

/// Names collected from several threads.
final class NameSet: Sendable {
  private let names = Mutex<Set<String>>([])
  func insert(_ found: [String]) { names.withLock { $0.formUnion(found) } }
  var all: Set<String> { names.withLock { $0 } }
}

/// Reads a child's output on a thread of its own, so its pipe never fills while the campaign
/// waits on other things.
final class ChildReader: @unchecked Sendable {
  // NB: `child` is used by the reading thread until it ends, then by `finish`, never both at
  // once (`done` orders them); the lines are behind the mutex.
  private let child: ChildProcess
  private let collected = Mutex<[String]>([])
  /// When each line arrived, on the campaign's clock.
  private let arrivals = Mutex<[ContinuousClock.Instant]>([])
  private let done = DispatchSemaphore(value: 0)
  private(set) var ending: ChildProcess.Termination?
  private var finished = false

  init(_ child: ChildProcess) {
    self.child = child
    let thread = Thread { [self] in
      while let line = self.child.readLine() {
        arrivals.withLock { $0.append(.now) }
        collected.withLock { $0.append(line) }
      }
      done.signal()
    }
    thread.start()
  }

  var lines: [String] { collected.withLock { $0 } }
  var times: [ContinuousClock.Instant] { arrivals.withLock { $0 } }

  /// Waits until the child printed `line`, or `timeout` seconds.
  func waitFor(_ line: String, timeout: Double) -> Bool {
    let deadline = Date().addingTimeInterval(timeout)
    while Date() < deadline {
      if collected.withLock({ $0.contains(line) }) { return true }
      Thread.sleep(forTimeInterval: 0.05)
    }
    return false
  }

  /// Waits for the child's end (its output closed), killing it after `timeout` seconds.
  func finish(timeout: Double) {
    guard !finished else { return }
    finished = true
    if done.wait(timeout: .now() + timeout) == .timedOut {
      child.kill()
      done.wait()
    }
    ending = child.wait()
  }
}
