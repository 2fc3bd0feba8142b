import Foundation
import Keepsake

/// The time of N processes running M `update` transactions each on one file, and of SQLite
/// doing the same work: the `processes` row of `keepsake-bench`, and part 1 of the processes
/// campaign without its loss checks.
///
/// Both sides run as child processes released together by a start file (``ChildGroup``); the
/// time is the parallel phase, from the start file to the last `done`. A side that lost,
/// doubled or failed to acknowledge an item says so in ``failures``: a fast run that loses data
/// is not a figure.
public struct TransactionThroughput: Sendable {
  /// The parallel phase, in seconds.
  public var seconds = 0.0
  /// The transactions acknowledged (Keepsake) or the rows committed (SQLite).
  public var transactions = 0
  /// What went wrong: a child that failed, an item lost or doubled, a wrong row count.
  public var failures: [String] = []
  /// Where the children's time went (not measured for SQLite).
  public var timing = LockTiming()

  /// The parallel phase over the transactions: the time of one transaction, all processes
  /// taking turns.
  public var secondsPerTransaction: Double {
    transactions > 0 ? seconds / Double(transactions) : .infinity
  }

  /// Runs `processes` children of `executable`, each `arguments` followed by
  /// ``ProcessesChild/arguments(url:mode:process:count:startFile:seed:)``, adding
  /// `transactions` items with `update` to a new file in `folder`, and checks the file holds
  /// exactly the items they acknowledged.
  public static func keepsake(
    executable: String, arguments: [String], processes: Int, transactions: Int, in folder: URL,
    timeout: Double
  ) -> TransactionThroughput {
    run(
      .update, executable: executable, arguments: arguments, processes: processes,
      transactions: transactions, in: folder, timeout: timeout)
  }

  /// The same work written by hand, without Keepsake (``ByHandTransactions``): the floor of
  /// Keepsake's write protocol, with the same checks of the final file.
  ///
  /// With ``ProcessesChild/Mode/protocolOnly``, the protocol alone, without decoding or encoding.
  public static func byHand(
    _ mode: ProcessesChild.Mode = .byHand, executable: String, arguments: [String],
    processes: Int, transactions: Int, in folder: URL, timeout: Double
  ) -> TransactionThroughput {
    run(
      mode, executable: executable, arguments: arguments, processes: processes,
      transactions: transactions, in: folder, timeout: timeout)
  }

  private static func run(
    _ mode: ProcessesChild.Mode, executable: String, arguments: [String], processes: Int,
    transactions: Int, in folder: URL, timeout: Double
  ) -> TransactionThroughput {
    let url = folder.appendingPathComponent("items.json")
    let group = ProcessesChild.runGroup(
      "\(mode.rawValue) process", executable: executable, prefix: arguments, mode: mode, url: url,
      processes: processes, count: transactions, seed: 1, timeout: timeout)
    var result = TransactionThroughput()
    result.seconds = group.seconds
    result.transactions = group.added.count
    result.failures = group.failures
    result.timing = group.timing
    let expected = processes * transactions
    let (items, loadError) = ProcessesCampaign.read(url, unmerged: false)
    let unique = Set(items.map(\.id))
    if let loadError { result.failures.append("the final file does not read: \(loadError)") }
    if items.count != expected || unique.count != expected || result.transactions != expected {
      result.failures.append(
        "\(result.transactions) of \(expected) transactions acknowledged, \(items.count) items"
          + " in the file (\(unique.count) distinct)")
    }
    return result
  }

  /// The same work through `python3`'s `sqlite3` (``SQLiteComparison``) in a new database in
  /// `folder`, or `nil` when no `python3` is on `PATH`.
  public static func sqlite(
    processes: Int, transactions: Int, in folder: URL, timeout: Double
  ) -> TransactionThroughput? {
    guard let python = SQLiteComparison.findPython() else { return nil }
    let sqlite = SQLiteComparison.run(
      python: python, processes: processes, transactions: transactions, folder: folder,
      timeout: timeout)
    var result = TransactionThroughput()
    result.seconds = sqlite.seconds
    result.transactions = sqlite.rows
    result.failures = sqlite.failures
    return result
  }
}
