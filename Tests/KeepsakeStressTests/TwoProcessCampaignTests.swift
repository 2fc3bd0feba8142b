import Foundation
import KeepsakeStress
import Testing

@Suite("Two processes, one file")
struct TwoProcessCampaignTests {
  @Test("Two writers and a watcher: no torn read, the final value seen, nothing left behind")
  func twoWritersOneWatcher() {
    var configuration = TwoProcessCampaign.Configuration(executable: stressExecutable)
    configuration.seconds = 1.5
    configuration.records = 100
    let report = TwoProcessCampaign(configuration).run()
    #expect(report.passed, "\(report)")
    #expect((report[figure: "writes"] ?? 0) > 10)
    #expect((report[figure: "watcher direct reads"] ?? 0) > 10)
  }

  @Test("A torn file is not a complete value")
  func tornValueIsCaught() throws {
    let data = try CounterFormat.encode(CounterValue.make(writer: "A", counter: 3))
    #expect(throws: (any Error).self) { try CounterFormat.decode(data.prefix(data.count / 2)) }
  }
}
