import Foundation
import KeepsakeStress
import Testing

@Suite("Crash campaign")
struct CrashCampaignTests {
  @Test("Killed writers lose no acknowledged save and leave no temporary file")
  func killsLoseNothing() {
    var configuration = CrashCampaign.Configuration(executable: stressExecutable)
    configuration.kills = 8
    configuration.seed = 5
    configuration.readerInterval = 4
    let report = CrashCampaign(configuration).run()
    #expect(report.passed, "\(report)")
    #expect(report[figure: "kills (SIGKILL)"] == 8)
    #expect(report[figure: "reader process checks"] == 3)
  }

  @Test("A writer that acknowledges before saving is caught losing saves")
  func earlyAcknowledgementIsCaught() {
    var configuration = CrashCampaign.Configuration(executable: stressExecutable)
    configuration.kills = 8
    configuration.seed = 5
    configuration.maximumDelay = 40
    configuration.acknowledgesBeforeSaving = true
    let report = CrashCampaign(configuration).run()
    #expect(!report.passed)
    #expect((report[figure: "lost acknowledged saves"] ?? 0) > 0, "\(report)")
  }
}
