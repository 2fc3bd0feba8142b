import Foundation
@_spi(Testing) import Keepsake
import KeepsakeStress
import Testing

@Suite("I/O fault sweep")
struct FaultSweepCampaignTests {
  @Test("Every fault of every operation leaves a complete file, is reported, and clears")
  func sweepPasses() async {
    let report = await FaultSweepCampaign().run()
    #expect(report.passed, "\(report)")
    let operations = report[figure: "operations swept (k_max)"] ?? 0
    #expect(operations >= 10, "the session loads, saves, flushes and loads again")
    #expect(report[figure: "runs"] == operations * 4)
    #expect(report[figure: "lost or torn files"] == 0)
  }

  @Test("A writer that writes in place is caught tearing the file")
  func inPlaceWriterIsCaught() async {
    var configuration = FaultSweepCampaign.Configuration()
    configuration.faults = [.fail(.diskFull), .shortWrite(written: 10)]
    configuration.fileSystem = { InPlaceFileSystem(disk: $0) }
    let report = await FaultSweepCampaign(configuration).run()
    #expect(!report.passed)
    #expect((report[figure: "lost or torn files"] ?? 0) > 0)
    #expect(report.failures.contains { $0.contains("torn file") })
  }
}
