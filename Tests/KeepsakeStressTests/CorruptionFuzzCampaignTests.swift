import Foundation
import Keepsake
import KeepsakeStress
import Testing

@Suite("Corruption fuzz")
struct CorruptionFuzzCampaignTests {
  @Test("Damaged files never crash Keepsake and are left byte for byte")
  func fuzzPasses() async {
    var configuration = CorruptionFuzzCampaign.Configuration()
    configuration.cases = 400
    configuration.seed = 1
    configuration.batchSize = 200
    // NB: in child processes, so a crash is counted (and reported) instead of ending the tests.
    configuration.executable = stressExecutable
    let report = await CorruptionFuzzCampaign(configuration).run()
    #expect(report[figure: "crashes"] == 0, "\(report)")
    #expect(report[figure: "damaged files modified"] == 0, "\(report)")
    #expect((report[figure: "refused with loadError"] ?? 0) > 300)
    #expect((report[figure: "still readable (loaded)"] ?? 0) > 0, "some damage is harmless")
    #expect(report[figure: "bad files refused at once"] == BadFileCase.allCases.count, "\(report)")
    #expect(report[figure: "odd paths that worked"] == OddPathCase.allCases.count, "\(report)")
    #expect(report[figure: "odd paths that failed"] == 0, "\(report)")
    #expect(report[figure: "bad files hung"] == 0, "\(report)")
    #expect(report[figure: "bad files crashed"] == 0, "\(report)")
    #expect(report[figure: "bad files modified"] == 0, "\(report)")
  }

  @Test("A disk that repairs damaged files is caught modifying them")
  func repairingDiskIsCaught() async {
    var configuration = CorruptionFuzzCampaign.Configuration()
    configuration.cases = 40
    configuration.seed = 3
    configuration.fileSystem = { RepairingFileSystem(disk: $0) }
    let report = await CorruptionFuzzCampaign(configuration).run()
    #expect(!report.passed)
    #expect((report[figure: "damaged files modified"] ?? 0) > 0)
  }
}
