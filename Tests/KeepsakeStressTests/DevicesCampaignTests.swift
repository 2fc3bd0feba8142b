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
    writer: DevicesChild.Mode = .library, seconds: Double = 10, processes: Int = 1,
    olderVersions: Bool = false
  ) -> DevicesCampaign.Configuration {
    var configuration = DevicesCampaign.Configuration(executable: stressExecutable)
    configuration.devices = 2
    configuration.processesPerDevice = processes
    configuration.seconds = seconds
    configuration.seed = 7
    configuration.writer = writer
    configuration.convergenceTimeout = 60
    configuration.olderModel = olderVersions
    configuration.olderFormat = olderVersions
    return configuration
  }

  @Test("Two devices that edit apart end with the same file, every acknowledged edit in it")
  func devicesLoseNothing() async {
    // Each device's process sets the notes of the other's items: two writers, two fields of one
    // item, on two devices.
    let settings = configuration()
    let report = await offThePool { DevicesCampaign(settings).run() }
    #expect(report.passed, "\(report)")
    #expect((report[figure: "edits acknowledged"] ?? 0) > 10, "\(report)")
    #expect((report[figure: "offline periods"] ?? 0) > 0, "\(report)")
    #expect((report[figure: "conflict copies made by the engine"] ?? 0) > 0, "\(report)")
    #expect(report[figure: "lost edits"] == 0)
    #expect(report[figure: "devices whose file differs"] == 0)
    #expect(report[figure: "conflict copies left beside items.json"] == 0)
  }

  @Test("An older version of the app, of the model or of the format, loses nothing of the newer's")
  func olderVersionsLoseNothing() async {
    // Each device runs a newer process; the first also one at the format's version 1, which
    // cannot read the newer file, the second one whose model has no notes.
    let settings = configuration(processes: 2, olderVersions: true)
    let report = await offThePool { DevicesCampaign(settings).run() }
    #expect(report.passed, "\(report)")
    #expect((report[figure: "changes kept beside the file by the older format"] ?? 0) > 0)
    #expect(report[figure: "kept changes left beside items.json"] == 0)
    #expect(report[figure: "lost edits"] == 0)
    #expect(report[figure: "devices whose file differs"] == 0)
  }

  @Test("A writer that ignores conflict copies loses edits, and the campaign sees it")
  func plainWriterIsCaught() async {
    let settings = configuration(writer: .plain, seconds: 8)
    let report = await offThePool { DevicesCampaign(settings).run() }
    #expect(!report.passed)
    #expect((report[figure: "lost edits"] ?? 0) > 0, "\(report)")
  }
}
