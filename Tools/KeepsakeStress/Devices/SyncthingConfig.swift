import Foundation

/// The loopback-only configuration of one campaign device, made from the `config.xml` that
/// `syncthing generate` wrote, and checked before any daemon starts.
///
/// Nothing may leave the machine: global and local discovery, relays, NAT
/// traversal (and with it STUN), usage and crash reports, upgrades and the browser are turned off;
/// the daemon listens, and its GUI and REST API answer, on `127.0.0.1` only; each peer is a
/// device with its loopback address; the folder sets `maxConflicts`, without which a hand-written
/// folder discards the losing edit of a conflict without a copy.
enum SyncthingConfig {
  /// One device of the cluster, as the others see it.
  struct Peer {
    var id: String
    var name: String
    /// `tcp://127.0.0.1:PORT`, or `dynamic` for a peer this device waits to be dialled by.
    var address: String
  }

  /// The options set, and the value each must have.
  static let options: [(String, String)] = [
    ("globalAnnounceEnabled", "false"), ("localAnnounceEnabled", "false"),
    ("relaysEnabled", "false"), ("natEnabled", "false"), ("urAccepted", "-1"),
    ("autoUpgradeIntervalH", "0"), ("crashReportingEnabled", "false"),
    ("startBrowser", "false"), ("stunKeepaliveStartS", "0"), ("stunKeepaliveMinS", "0"),
    ("announceLANAddresses", "false"), ("reconnectionIntervalS", "1"),
  ]

  /// The generated configuration `xml`, edited for loopback only.
  ///
  /// - Throws: ``DevicesCampaignError`` when the generated file does not look as expected, so
  ///   that no daemon ever starts on a configuration this did not fully edit.
  static func edit(
    _ xml: String, listenPort: Int, guiPort: Int, folder: URL, peers: [Peer], allDevices: [String],
    maxConflicts: Int
  ) throws -> String {
    var text = xml
    for (name, value) in options {
      let pattern = "<\(name)>[^<]*</\(name)>"
      let element = "<\(name)>\(value)</\(name)>"
      if text.range(of: pattern, options: .regularExpression) != nil {
        text = text.replacingOccurrences(of: pattern, with: element, options: .regularExpression)
      } else {
        text = try insert(element, before: "</options>", in: text)
      }
    }
    text = text.replacingOccurrences(
      of: "\\s*<globalAnnounceServer>[^<]*</globalAnnounceServer>", with: "",
      options: .regularExpression)
    text = text.replacingOccurrences(
      of: "\\s*<listenAddress>[^<]*</listenAddress>", with: "", options: .regularExpression)
    text = try insert(
      "<listenAddress>tcp://127.0.0.1:\(listenPort)</listenAddress>", before: "</options>",
      in: text)
    guard
      let gui = text.range(
        of: "<gui[^>]*>\\s*<address>[^<]*</address>", options: .regularExpression)
    else { throw DevicesCampaignError("the generated config.xml has no GUI address") }
    let guiElement = String(text[gui])
    text.replaceSubrange(
      gui,
      with: guiElement.replacingOccurrences(
        of: "<address>[^<]*</address>", with: "<address>127.0.0.1:\(guiPort)</address>",
        options: .regularExpression))
    var added = ""
    for peer in peers {
      added +=
        "\n    <device id=\"\(peer.id)\" name=\"\(peer.name)\" compression=\"metadata\" "
        + "introducer=\"false\" skipIntroductionRemovals=\"false\" introducedBy=\"\">"
        + "\n        <address>\(peer.address)</address>"
        + "\n        <autoAcceptFolders>false</autoAcceptFolders>\n    </device>"
    }
    added +=
      "\n    <folder id=\"keepsake\" label=\"keepsake\" path=\"\(folder.path)\" "
      + "type=\"sendreceive\" rescanIntervalS=\"5\" fsWatcherEnabled=\"true\" "
      + "fsWatcherDelayS=\"1\" ignorePerms=\"false\" autoNormalize=\"true\">"
    for id in allDevices { added += "\n        <device id=\"\(id)\" introducedBy=\"\"></device>" }
    added += "\n        <maxConflicts>\(maxConflicts)</maxConflicts>\n    </folder>"
    text = try insert(added + "\n", before: "<gui", in: text)
    try check(text, listenPort: listenPort, guiPort: guiPort)
    return text
  }

  /// Refuses a configuration that could reach anything but this machine.
  static func check(_ text: String, listenPort: Int, guiPort: Int) throws {
    for (name, value) in options {
      let found = matches("<\(name)>([^<]*)</\(name)>", in: text)
      guard found == [value] else {
        throw DevicesCampaignError("config.xml sets \(name) to \(found), not \(value)")
      }
    }
    guard !text.contains("globalAnnounceServer") else {
      throw DevicesCampaignError("config.xml still names a global announce server")
    }
    guard
      matches("<listenAddress>([^<]*)</listenAddress>", in: text)
        == ["tcp://127.0.0.1:\(listenPort)"]
    else { throw DevicesCampaignError("config.xml listens elsewhere than 127.0.0.1:\(listenPort)") }
    for address in matches("<address>([^<]*)</address>", in: text) {
      guard
        address == "dynamic" || address.hasPrefix("tcp://127.0.0.1:")
          || address == "127.0.0.1:\(guiPort)"
      else { throw DevicesCampaignError("config.xml has an address off the machine: \(address)") }
    }
    guard text.contains("<maxConflicts>") else {
      throw DevicesCampaignError("config.xml's folder has no maxConflicts")
    }
  }

  /// The device's own ID, as `syncthing generate` wrote it.
  static func deviceID(in xml: String) throws -> String {
    guard let id = matches("<device id=\"([A-Z0-9-]+)\"", in: xml).first else {
      throw DevicesCampaignError("the generated config.xml names no device")
    }
    return id
  }

  /// The REST API key the generated configuration holds.
  static func apiKey(in xml: String) throws -> String {
    guard let key = matches("<apikey>([^<]+)</apikey>", in: xml).first else {
      throw DevicesCampaignError("the generated config.xml has no API key")
    }
    return key
  }

  private static func insert(_ element: String, before marker: String, in text: String) throws
    -> String
  {
    guard let range = text.range(of: marker) else {
      throw DevicesCampaignError("the generated config.xml has no \(marker)")
    }
    var text = text
    text.insert(contentsOf: element, at: range.lowerBound)
    return text
  }

  /// The first capture group of every match of `pattern`.
  private static func matches(_ pattern: String, in text: String) -> [String] {
    guard let expression = try? NSRegularExpression(pattern: pattern) else { return [] }
    let range = NSRange(text.startIndex..., in: text)
    return expression.matches(in: text, range: range).compactMap { match in
      Range(match.range(at: 1), in: text).map { String(text[$0]) }
    }
  }
}
