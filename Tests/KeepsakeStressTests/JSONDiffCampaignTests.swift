import Foundation
import KeepsakeStress
import Testing

@Suite("JSON differential campaign")
struct JSONDiffCampaignTests {
  @Test("Keepsake's JSON codec and Foundation's agree on random values and damaged bytes")
  func codecsAgree() {
    var configuration = JSONDiffCampaign.Configuration()
    // NB: one child process, so a crash is counted instead of ending the tests, and with
    // deterministic hashing, so Foundation lists an object's keys in a repeatable order. Kept
    // small (about a second) because it shares two cores with the whole suite; the default
    // `keepsake-stress` run compares 20,000 cases.
    configuration.cases = 300
    configuration.seed = 1
    configuration.batchSize = 300
    configuration.executable = stressExecutable
    let report = JSONDiffCampaign(configuration).run()
    #expect(report[figure: "differences"] == 0, "\(report)")
    #expect(report[figure: "crashes"] == 0, "\(report)")
    #expect((report[figure: "values encoded, same bytes"] ?? 0) > 60, "\(report)")
    #expect((report[figure: "values refused by both encoders, same error"] ?? 0) > 0, "\(report)")
    #expect((report[figure: "accepted by both, equal values"] ?? 0) > 120, "\(report)")
    #expect((report[figure: "refused by both, same error and path"] ?? 0) > 250, "\(report)")
    #expect((report[figure: "deepest nesting refused cleanly"] ?? 0) >= 100_000, "\(report)")
  }

  @Test("An encoder that writes other bytes is caught")
  func changedBytesAreCaught() {
    var configuration = JSONDiffCampaign.Configuration()
    configuration.cases = 50
    configuration.seed = 2
    // Foundation escapes "/" as "\/"; an encoder that does not differs.
    configuration.tamper = { data in
      Data(String(decoding: data, as: UTF8.self).replacingOccurrences(of: "\\/", with: "/").utf8)
    }
    let report = JSONDiffCampaign(configuration).run()
    #expect(!report.passed)
    #expect((report[figure: "differences"] ?? 0) > 0)
    #expect(report.failures.contains { $0.contains("encodings differ") }, "\(report)")
  }

  @Test("A decoder that accepts other documents is caught")
  func changedAcceptanceIsCaught() {
    var configuration = JSONDiffCampaign.Configuration()
    configuration.cases = 50
    configuration.seed = 3
    // A decoder that ignores a last byte it does not like accepts what Foundation refuses.
    configuration.tamper = { data in
      guard let last = data.last, last != UInt8(ascii: "]"), last != UInt8(ascii: "}") else {
        return data
      }
      return data.dropLast()
    }
    let report = JSONDiffCampaign(configuration).run()
    #expect((report[figure: "differences"] ?? 0) > 0, "\(report)")
  }
}
