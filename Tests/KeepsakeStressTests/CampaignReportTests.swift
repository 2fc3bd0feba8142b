import KeepsakeStress
import Testing

@Suite("Campaign report")
struct CampaignReportTests {
  @Test("A loss figure above zero fails the campaign; other figures do not")
  func verdict() {
    var report = CampaignReport(
      campaign: "crash", settings: "seed 1",
      figures: [.init("kills", 300), .init("lost acknowledged saves", 0, isLoss: true)])
    #expect(report.passed)
    report.figures[1].value = 1
    #expect(!report.passed)
  }

  @Test("The report prints every figure, aligned, and its verdict")
  func printed() {
    let report = CampaignReport(
      campaign: "fuzz", settings: "seed 7, 10 cases",
      figures: [.init("cases", 10), .init("crashes", 0, isLoss: true)], seconds: 1.25)
    #expect(
      report.description == """
        == fuzz (seed 7, 10 cases)
          cases    10
          crashes  0
          passed in 1.2 s
        """)
  }
}
