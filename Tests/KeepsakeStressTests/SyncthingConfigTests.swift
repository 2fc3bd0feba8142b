import Foundation
import Testing

@testable import KeepsakeStress

/// The loopback-only configuration, checked without starting any daemon.
@Suite("Syncthing's loopback configuration")
struct SyncthingConfigTests {
  /// The parts of a configuration `syncthing generate` (1.19) writes that the edit touches.
  let generated = """
    <configuration version="36">
        <device id="W7GTIZV-HBKB7JC-ISPUSZV-MZDEQ5I-3KZWFNG-GN5DXD5-PFVYYHY-2XUXAAX" name="vm">
            <address>dynamic</address>
        </device>
        <gui enabled="true" tls="false" debugging="false">
            <address>127.0.0.1:8384</address>
            <apikey>kU3yJShLssLW6odVbvMn2uzdPordizAk</apikey>
        </gui>
        <options>
            <listenAddress>default</listenAddress>
            <globalAnnounceServer>default</globalAnnounceServer>
            <globalAnnounceEnabled>true</globalAnnounceEnabled>
            <localAnnounceEnabled>true</localAnnounceEnabled>
            <reconnectionIntervalS>60</reconnectionIntervalS>
            <relaysEnabled>true</relaysEnabled>
            <startBrowser>true</startBrowser>
            <natEnabled>true</natEnabled>
            <urAccepted>0</urAccepted>
            <autoUpgradeIntervalH>12</autoUpgradeIntervalH>
            <crashReportingEnabled>true</crashReportingEnabled>
            <stunKeepaliveStartS>180</stunKeepaliveStartS>
            <stunKeepaliveMinS>20</stunKeepaliveMinS>
            <announceLANAddresses>true</announceLANAddresses>
        </options>
    </configuration>
    """

  func edited() throws -> String {
    try SyncthingConfig.edit(
      generated, listenPort: 40001, guiPort: 40002,
      folder: URL(fileURLWithPath: "/tmp/dev1/folder"),
      peers: [.init(id: "PEER", name: "dev2", address: "tcp://127.0.0.1:40003")],
      allDevices: ["W7GTIZV", "PEER"], maxConflicts: 10)
  }

  @Test("Discovery, relays, NAT, reports, upgrades and the browser are off; all is on loopback")
  func loopbackOnly() throws {
    let text = try edited()
    for (name, value) in SyncthingConfig.options {
      #expect(text.contains("<\(name)>\(value)</\(name)>"), "\(name)")
    }
    #expect(!text.contains("globalAnnounceServer"))
    #expect(text.contains("<listenAddress>tcp://127.0.0.1:40001</listenAddress>"))
    #expect(text.contains("<address>127.0.0.1:40002</address>"))
    #expect(text.contains("<address>tcp://127.0.0.1:40003</address>"))
    #expect(text.contains("<maxConflicts>10</maxConflicts>"))
  }

  @Test(
    "A configuration that could reach another machine is refused before any start",
    arguments: [
      (
        "<listenAddress>tcp://127.0.0.1:40001</listenAddress>",
        "<listenAddress>default</listenAddress>"
      ),
      (
        "<globalAnnounceEnabled>false</globalAnnounceEnabled>",
        "<globalAnnounceEnabled>true</globalAnnounceEnabled>"
      ),
      ("tcp://127.0.0.1:40003", "tcp://192.0.2.7:22000"),
      ("<maxConflicts>10</maxConflicts>", ""),
    ])
  func refused(_ original: String, _ replacement: String) throws {
    let text = try edited().replacingOccurrences(of: original, with: replacement)
    #expect(throws: DevicesCampaignError.self) {
      try SyncthingConfig.check(text, listenPort: 40001, guiPort: 40002)
    }
  }
}
