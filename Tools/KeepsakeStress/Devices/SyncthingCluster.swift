import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Two or three Syncthing daemons on this machine that sync one folder with each other over
/// loopback only, each with its state in a scratch folder (`devN/home`), its folder
/// (`devN/folder`) and its log (`devN/log`).
///
/// Every daemon it starts is stopped by ``stop()``, by the process IDs it started (and the one
/// child `syncthing serve` starts), also when the campaign fails, or by a signal that ends the
/// process (see ``stopsDaemonsOnSignals()``); a daemon never starts on a configuration that
/// ``SyncthingConfig`` did not edit and check.
final class SyncthingCluster {
  /// One daemon.
  struct Device {
    let index: Int
    let id: String
    let home: URL
    let folder: URL
    let log: URL
    let guiPort: Int
    let apiKey: String
    var pid: pid_t = 0

    /// The first seven characters of the ID, as conflict copies name it.
    var shortID: String { String(id.prefix(7)) }
  }

  /// Where `syncthing` is, or `nil` when it is not installed.
  static var executable: String? {
    let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
    for folder in path.split(separator: ":") {
      let candidate = "\(folder)/syncthing"
      if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
    }
    return nil
  }

  private(set) var devices: [Device] = []
  private let executable: String
  private var children: [pid_t] = []

  /// Generates and configures `count` devices under `scratch`, and starts them.
  ///
  /// - Throws: ``DevicesCampaignError`` when Syncthing is missing or a daemon cannot be set up;
  ///   daemons already started are stopped first.
  init(count: Int, in scratch: URL, maxConflicts: Int = 10) throws {
    guard let executable = Self.executable else {
      throw DevicesCampaignError(
        "syncthing is not installed: apt-get install -y syncthing (Debian, Ubuntu)")
    }
    self.executable = executable
    do {
      try setUp(count: count, in: scratch, maxConflicts: maxConflicts)
    } catch {
      stop()
      throw error
    }
  }

  deinit { stop() }

  /// Daemons started and connected to each other, the folder that holds them, and the first
  /// line of why a first set-up failed, if one did.
  ///
  /// A set-up that fails is tried once more, on fresh ports and homes: a port another program
  /// took between its choice and the daemon's listen, or a handshake a loaded machine let time
  /// out, says nothing about what runs on the daemons. A second failure is thrown, with its
  /// reason.
  static func connected(count: Int, in scratch: URL, maxConflicts: Int) throws -> (
    cluster: SyncthingCluster, base: URL, firstFailure: String?
  ) {
    var firstFailure: DevicesCampaignError?
    for base in [scratch, scratch.appendingPathComponent("set-up-again")] {
      let cluster: SyncthingCluster
      do {
        cluster = try SyncthingCluster(count: count, in: base, maxConflicts: maxConflicts)
        try cluster.waitUntilConnected(timeout: 60)
      } catch let error as DevicesCampaignError where firstFailure == nil {
        firstFailure = error
        continue
      }
      let reason = firstFailure.map { String($0.description.prefix { $0 != "\n" }) }
      return (cluster, base, reason)
    }
    throw firstFailure ?? DevicesCampaignError("the daemons could not be set up")
  }

  private func setUp(count: Int, in scratch: URL, maxConflicts: Int) throws {
    var generated: [(home: URL, xml: String, id: String)] = []
    for index in 1...count {
      let home = scratch.appendingPathComponent("dev\(index)/home")
      try FileManager.default.createDirectory(at: home, withIntermediateDirectories: true)
      // NB: `generate` makes the keys and a configuration and exits; it contacts nothing.
      try run(["generate", "--home=\(home.path)", "--no-default-folder"])
      let xml = try String(contentsOf: home.appendingPathComponent("config.xml"), encoding: .utf8)
      generated.append((home, xml, try SyncthingConfig.deviceID(in: xml)))
    }
    let listenPorts = try (0..<count).map { _ in try LoopbackHTTP.freePort() }
    let guiPorts = try (0..<count).map { _ in try LoopbackHTTP.freePort() }
    for (offset, device) in generated.enumerated() {
      let folder = scratch.appendingPathComponent("dev\(offset + 1)/folder")
      try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
      // NB: only the lower-numbered device of a pair dials the other: two daemons dialling each
      // other at once were measured failing their handshakes for tens of seconds.
      let peers = generated.enumerated().filter { $0.offset != offset }.map { other in
        SyncthingConfig.Peer(
          id: other.element.id, name: "dev\(other.offset + 1)",
          address: offset < other.offset
            ? "tcp://127.0.0.1:\(listenPorts[other.offset])" : "dynamic")
      }
      let edited = try SyncthingConfig.edit(
        device.xml, listenPort: listenPorts[offset], guiPort: guiPorts[offset], folder: folder,
        peers: peers, allDevices: generated.map(\.id), maxConflicts: maxConflicts)
      try edited.write(
        to: device.home.appendingPathComponent("config.xml"), atomically: true, encoding: .utf8)
      devices.append(
        Device(
          index: offset + 1, id: device.id, home: device.home, folder: folder,
          log: scratch.appendingPathComponent("dev\(offset + 1)/log"), guiPort: guiPorts[offset],
          apiKey: try SyncthingConfig.apiKey(in: edited)))
    }
    for offset in devices.indices {
      // The file on disk is checked again right before the start: what starts is what was
      // checked.
      let written = try String(
        contentsOf: devices[offset].home.appendingPathComponent("config.xml"), encoding: .utf8)
      try SyncthingConfig.check(
        written, listenPort: listenPorts[offset], guiPort: devices[offset].guiPort)
      devices[offset].pid = try spawn(
        [
          "serve", "--home=\(devices[offset].home.path)", "--no-browser", "--no-upgrade",
          "--no-restart",
        ], log: devices[offset].log)
    }
  }

  // MARK: - REST

  func request(_ method: String, _ path: String, on device: Device) throws
    -> LoopbackHTTP.Response
  {
    try LoopbackHTTP.request(method, port: device.guiPort, path: path, apiKey: device.apiKey)
  }

  /// Waits until every daemon answers its REST API and sees every other one connected.
  func waitUntilConnected(timeout: Double) throws {
    let deadline = Date().addingTimeInterval(timeout)
    while Date() < deadline {
      if (try? devices.allSatisfy(isConnectedToAll)) == true { return }
      Thread.sleep(forTimeInterval: 0.25)
    }
    // NB: the logs' last lines in the error itself: the scratch folder that holds the logs is
    // removed when the campaign ends, and a daemon that did not connect says why there.
    let tails = devices.map { device -> String in
      let text = (try? String(contentsOf: device.log, encoding: .utf8)) ?? ""
      let last = text.split(separator: "\n").suffix(6).joined(separator: "\n    ")
      return "\(device.log.lastPathComponent) of \(device.home.lastPathComponent):\n    \(last)"
    }
    throw DevicesCampaignError(
      "the daemons did not connect within \(Int(timeout)) s; the end of each log:\n  "
        + tails.joined(separator: "\n  "))
  }

  private func isConnectedToAll(_ device: Device) throws -> Bool {
    let response = try request("GET", "/rest/system/connections", on: device)
    guard let connections = response.object?["connections"] as? [String: Any] else { return false }
    return devices.filter { $0.id != device.id }.allSatisfy { other in
      ((connections[other.id] as? [String: Any])?["connected"] as? Bool) == true
    }
  }

  /// Takes device `a` and `b` apart (each pauses the other), or brings them back together.
  func setLink(_ a: Int, _ b: Int, up: Bool) throws {
    let verb = up ? "resume" : "pause"
    for (from, to) in [(a, b), (b, a)] {
      let response = try request(
        "POST", "/rest/system/\(verb)?device=\(devices[to].id)", on: devices[from])
      guard response.status == 200 else {
        throw DevicesCampaignError("\(verb) on dev\(from + 1) answered \(response.status)")
      }
    }
  }

  /// Whether every daemon has scanned, sent and received everything: its folder idle, nothing
  /// needed, and every peer's copy complete.
  func isQuiet() -> Bool {
    for device in devices {
      guard let status = try? request("GET", "/rest/db/status?folder=keepsake", on: device).object,
        status["state"] as? String == "idle", (status["needTotalItems"] as? Int ?? 1) == 0
      else { return false }
      for other in devices where other.id != device.id {
        let completion = try? request(
          "GET", "/rest/db/completion?folder=keepsake&device=\(other.id)", on: device
        ).object
        guard (completion?["completion"] as? Double ?? 0) >= 100,
          (completion?["needItems"] as? Int ?? 1) == 0
        else { return false }
      }
    }
    return true
  }

  /// Asks a scan of every folder now (after the campaign's last edits).
  func rescanAll() {
    for device in devices {
      _ = try? request("POST", "/rest/db/scan?folder=keepsake", on: device)
    }
  }

  // MARK: - Processes

  /// Stops every daemon this cluster started: a shutdown through the API, then by process ID
  /// the ones still running (the `serve` processes and their children).
  func stop() {
    for device in devices where device.pid > 0 {
      _ = try? LoopbackHTTP.request(
        "POST", port: device.guiPort, path: "/rest/system/shutdown", apiKey: device.apiKey,
        timeout: 2)
    }
    let pids = devices.map(\.pid).filter { $0 > 0 }
    let all = pids + pids.flatMap(Self.children(of:)) + children
    let deadline = Date().addingTimeInterval(10)
    for pid in pids {
      while waitpid(pid, nil, WNOHANG) == 0 && Date() < deadline {
        Thread.sleep(forTimeInterval: 0.05)
      }
    }
    for pid in Set(all) where kill(pid, 0) == 0 {
      _ = kill(pid, SIGTERM)
    }
    Thread.sleep(forTimeInterval: 0.2)
    for pid in Set(all) where kill(pid, 0) == 0 {
      _ = kill(pid, SIGKILL)
    }
    for pid in pids { _ = waitpid(pid, nil, WNOHANG) }
    Self.running.withLock { $0.subtract(pids) }
    for index in devices.indices { devices[index].pid = 0 }
  }

  /// The processes whose parent is `pid` (`syncthing serve` runs the daemon as its child).
  static func children(of pid: pid_t) -> [pid_t] {
    guard let entries = try? FileManager.default.contentsOfDirectory(atPath: "/proc") else {
      return []
    }
    return entries.compactMap { entry -> pid_t? in
      guard let candidate = pid_t(entry),
        let stat = try? String(contentsOfFile: "/proc/\(entry)/stat", encoding: .utf8),
        let close = stat.lastIndex(of: ")")
      else { return nil }
      let fields = stat[stat.index(after: close)...].split(separator: " ")
      return fields.count > 1 && pid_t(fields[1]) == pid ? candidate : nil
    }
  }

  /// Records the daemons' children now, while their parents live (to stop them by ID later).
  func recordChildren() {
    children = Array(
      Set(children + devices.map(\.pid).filter { $0 > 0 }.flatMap(Self.children(of:))))
  }

  /// Runs `syncthing` with `arguments` to its end; its output is discarded.
  private func run(_ arguments: [String]) throws {
    let pid = try spawn(arguments, log: URL(fileURLWithPath: "/dev/null"))
    var status: Int32 = 0
    while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
    guard status == 0 else {
      throw DevicesCampaignError("syncthing \(arguments.first ?? "") failed (status \(status))")
    }
  }

  /// Starts `syncthing` with `arguments`, its output going to `log`; upgrades, restarts and the
  /// default folder are off in its environment too.
  private func spawn(_ arguments: [String], log: URL) throws -> pid_t {
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
    posix_spawn_file_actions_addopen(&actions, 1, log.path, O_WRONLY | O_CREAT | O_APPEND, 0o644)
    posix_spawn_file_actions_adddup2(&actions, 1, 2)
    var variables = ProcessInfo.processInfo.environment
    variables["STNOUPGRADE"] = "1"
    variables["STNODEFAULTFOLDER"] = "1"
    variables["STNORESTART"] = "1"
    let argv = ([executable] + arguments).map { strdup($0) }
    defer { for argument in argv { free(argument) } }
    let envp = variables.map { strdup("\($0.key)=\($0.value)") }
    defer { for variable in envp { free(variable) } }
    var pid: pid_t = 0
    let status = posix_spawn(&pid, executable, &actions, nil, argv + [nil], envp + [nil])
    guard status == 0 else {
      throw DevicesCampaignError("could not start syncthing: \(String(cString: strerror(status)))")
    }
    Self.running.withLock { _ = $0.insert(pid) }
    return pid
  }
}
