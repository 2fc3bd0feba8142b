import Foundation
import KeepsakeStress
import Testing

// NB: serialized: every test starts several processes that fsync on every save, and the
// machines this runs on have two cores.
@Suite("Processes campaign", .serialized)
struct ProcessesCampaignTests {
  /// A small campaign: only the parts a test turns on.
  private func configuration(
    processes: Int = 0, transactions: Int = 10, writer: ProcessesChild.Mode = .update,
    mergingProcesses: Int = 0
  ) -> ProcessesCampaign.Configuration {
    var configuration = ProcessesCampaign.Configuration(executable: stressExecutable)
    configuration.processes = processes
    configuration.transactions = transactions
    configuration.transactionWriter = writer
    configuration.mergingProcesses = mergingProcesses
    configuration.mergingItems = 10
    configuration.seed = 5
    configuration.comparesWithSQLite = false
    configuration.comparesWithByHand = false
    configuration.timeout = 60
    return configuration
  }

  @Test(
    "Three processes of ten transactions each keep all 30 items, none doubled",
    // NB: the by-hand floor too: a floor that lost items would not be doing the same work.
    arguments: [ProcessesChild.Mode.update, .withTransaction, .byHand, .protocolOnly])
  func transactionsLoseNothing(_ writer: ProcessesChild.Mode) {
    let report = ProcessesCampaign(configuration(processes: 3, writer: writer)).run()
    #expect(report.passed, "\(report)")
    #expect(report[figure: "transactions"] == 30)
    #expect(report[figure: "items in the file"] == 30)
    #expect(report[figure: "lost items"] == 0)
    #expect(report[figure: "duplicated items"] == 0)
    #expect(report[figure: "transaction processes failed"] == 0)
    // Where the time went: one holder at a time, and the protocol's calls are part of a hold.
    let held = report[figure: "lock held (% of the parallel phase)"] ?? -1
    #expect(held > 0 && held <= 100, "\(report)")
    let inLock = report[figure: "in the lock per transaction (µs)"] ?? 0
    let calls = report[figure: "write protocol's calls per transaction (µs)"] ?? 0
    #expect(calls > 0 && calls <= inLock, "\(report)")
    #expect((report[figure: "processor time per transaction (µs, all processes)"] ?? 0) > 0)
  }

  @Test("Two processes whose background saves race keep every item they added")
  func mergingLosesNothing() {
    let report = ProcessesCampaign(configuration(mergingProcesses: 2)).run()
    #expect(report.passed, "\(report)")
    #expect(report[figure: "merging: items added"] == 20)
    #expect(report[figure: "merging: items in the file"] == 20)
    #expect(report[figure: "merging: lost items"] == 0)
    #expect(report[figure: "merging: duplicated items"] == 0)
  }

  @Test("A writer that cannot merge is caught losing items, which its conflict copies keep")
  func unmergedWriterIsCaught() {
    // NB: 9 transactions, so at most 8 conflicts: within the copies a file keeps, none of which
    // is then pruned (past the limit an older copy goes, and is reported; with 30 transactions a
    // loaded machine made 17 conflicts, and an item only a pruned copy held was not found).
    let report = ProcessesCampaign(
      configuration(processes: 3, transactions: 3, writer: .unmerged)
    ).run()
    #expect(!report.passed)
    let lost = report[figure: "lost items"] ?? 0
    #expect(lost > 0, "\(report)")
    #expect(report[figure: "lost items found in conflict copies"] == lost, "\(report)")
  }

  @Test("SQLite does the same transactions beside it, or says it was not measured")
  func sqliteComparison() {
    var configuration = configuration(processes: 2, transactions: 5, writer: .withTransaction)
    configuration.comparesWithSQLite = true
    let report = ProcessesCampaign(configuration).run()
    #expect(report.passed, "\(report)")
    if report.settings.contains("python3 missing") {
      #expect(report[figure: "sqlite rows"] == nil)
    } else {
      #expect(report[figure: "sqlite rows"] == 10, "\(report)")
      #expect(report.settings.contains("sqlite: wal journal, synchronous=FULL"), "\(report)")
      #expect((report[figure: "sqlite transactions per second"] ?? 0) > 0)
      #expect((report[figure: "write protocol's calls/sqlite transaction (%)"] ?? 0) > 0)
    }
  }

  @Test("The same transactions written by hand run beside it, and lose nothing either")
  func byHandComparison() {
    var configuration = configuration(processes: 2, transactions: 5)
    configuration.comparesWithByHand = true
    let report = ProcessesCampaign(configuration).run()
    #expect(report.passed, "\(report)")
    for mode in ["by-hand", "protocol-only"] {
      #expect(report[figure: "\(mode) items in the file"] == 10, "\(report)")
      #expect((report[figure: "\(mode) transactions per second"] ?? 0) > 0)
      let calls = report[figure: "\(mode) write protocol's calls per transaction (µs)"] ?? 0
      #expect(calls > 0, "\(report)")
      #expect(calls <= report[figure: "\(mode) in the lock per transaction (µs)"] ?? 0)
    }
    #expect(
      report.settings.hasSuffix("protocol only: the same without the coders"),
      "no problem noted: \(report.settings)")
  }
}
