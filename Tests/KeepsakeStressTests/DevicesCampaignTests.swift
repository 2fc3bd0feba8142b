import Foundation
import KeepsakeStress
import Testing

/// Whether a test that needs Syncthing must run: where it is installed, and always under CI,
/// where a missing Syncthing fails with the way to install it instead of being skipped.
private let runsWithSyncthing =
  DevicesCampaign.isAvailable || ProcessInfo.processInfo.environment["CI"] != nil

// NB: serialized: each test starts Syncthing daemons and processes that fsync on every save,
// and the machines this runs on have two cores.
@Suite("Devices campaign", .serialized, .enabled(if: runsWithSyncthing))
struct DevicesCampaignTests {
  private func configuration(
    writer: DevicesChild.Mode = .library, seconds: Double = 10
  ) -> DevicesCampaign.Configuration {
    var configuration = DevicesCampaign.Configuration(executable: stressExecutable)
    configuration.devices = 2
    configuration.processesPerDevice = 1
    configuration.seconds = seconds
    configuration.seed = 7
    configuration.writer = writer
    configuration.convergenceTimeout = 60
    // NB: every edit saved: a change left pending while the engine replaces the file still
    // loses edits (the default stress run shows it; see the notes), which this test does not
    // yet hold.
    configuration.pendingEvery = 0
    return configuration
  }

  @Test("Two devices that edit apart end with the same file, every acknowledged edit in it")
  func devicesLoseNothing() {
    let report = DevicesCampaign(configuration()).run()
    #expect(report.passed, "\(report)")
    #expect((report[figure: "edits acknowledged"] ?? 0) > 10, "\(report)")
    #expect((report[figure: "offline periods"] ?? 0) > 0, "\(report)")
    #expect((report[figure: "conflict copies made by the engine"] ?? 0) > 0, "\(report)")
    #expect(report[figure: "lost edits"] == 0)
    #expect(report[figure: "devices whose file differs"] == 0)
    #expect(report[figure: "conflict copies left beside items.json"] == 0)
  }

  @Test("A writer that ignores conflict copies loses edits, and the campaign sees it")
  func plainWriterIsCaught() {
    let report = DevicesCampaign(configuration(writer: .plain, seconds: 8)).run()
    #expect(!report.passed)
    #expect((report[figure: "lost edits"] ?? 0) > 0, "\(report)")
  }
}
