import Foundation

/// The processes campaign's yardstick: the same logical work as its transactions mode (N
/// processes, M transactions each, each inserting one item) done by SQLite, on the same disk in
/// the same run, through `python3`'s `sqlite3` module.
///
/// SQLite runs in WAL mode with `synchronous=FULL`, so every commit fsyncs the log, as
/// Keepsake's durable write fsyncs its file and folder; each transaction is `BEGIN IMMEDIATE`
/// (the write lock first, like Keepsake's lock file), an `INSERT` and a `COMMIT`, with a busy
/// timeout of 60 s. A comparison figure, not a verdict: Keepsake rewrites its whole file per
/// transaction, SQLite appends a page to its log.
struct SQLiteComparison {
  /// Rows in the table at the end.
  var rows = 0
  /// Distinct identifiers among them.
  var distinctRows = 0
  /// The journal mode SQLite confirmed (`wal`).
  var journalMode = ""
  /// The parallel phase, from the start file to the last process's `done`.
  var seconds = 0.0
  /// Problems with the comparison itself (a process that failed, a row count that is wrong).
  var failures: [String] = []

  /// The script each `python3 -c` child runs: `setup <db>`, `insert <db> <process> <count>
  /// <start file>` or `count <db>`.
  static let script = """
    import os, sqlite3, sys, time

    def connect(path):
        # isolation_level=None: the script says BEGIN IMMEDIATE and COMMIT itself.
        db = sqlite3.connect(path, timeout=60, isolation_level=None)
        db.execute("PRAGMA busy_timeout = 60000")
        db.execute("PRAGMA synchronous = FULL")
        return db

    mode, path = sys.argv[1], sys.argv[2]
    db = connect(path)
    if mode == "setup":
        journal = db.execute("PRAGMA journal_mode = WAL").fetchone()[0]
        db.execute("CREATE TABLE items (id TEXT PRIMARY KEY)")
        print("done", journal, flush=True)
    elif mode == "insert":
        process, count, start = int(sys.argv[3]), int(sys.argv[4]), sys.argv[5]
        print("ready", flush=True)
        while not os.path.exists(start):
            time.sleep(0.001)
        for index in range(count):
            db.execute("BEGIN IMMEDIATE")
            db.execute("INSERT INTO items (id) VALUES (?)", ("%d.%d" % (process, index),))
            db.execute("COMMIT")
        print("done", count, flush=True)
    else:
        rows, distinct = db.execute("SELECT COUNT(*), COUNT(DISTINCT id) FROM items").fetchone()
        print("done", rows, distinct, flush=True)
    """

  /// The `python3` on `PATH` that has the `sqlite3` module, or `nil`.
  static func findPython() -> String? {
    let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
    for folder in path.split(separator: ":") {
      let candidate = URL(fileURLWithPath: String(folder)).appendingPathComponent("python3").path
      if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
    }
    return nil
  }

  /// Runs `processes` python processes of `transactions` transactions each against a new
  /// database in `folder`.
  static func run(
    python: String, processes: Int, transactions: Int, folder: URL, timeout: Double
  ) -> SQLiteComparison {
    var result = SQLiteComparison()
    let database = folder.appendingPathComponent("items.sqlite").path
    guard let setup = runOnce(python, ["setup", database]), setup.count == 1 else {
      result.failures.append("sqlite: python3 could not create the database")
      return result
    }
    result.journalMode = setup[0]
    let startFile = folder.appendingPathComponent("start-sqlite")
    let group = ChildGroup.run(
      "sqlite process", executable: python,
      arguments: (0..<processes).map { process in
        ["-c", script, "insert", database, "\(process)", "\(transactions)", startFile.path]
      },
      startFile: startFile, timeout: timeout)
    result.seconds = group.seconds
    result.failures += group.failures
    guard let counts = runOnce(python, ["count", database]), counts.count == 2,
      let rows = Int(counts[0]), let distinct = Int(counts[1])
    else {
      result.failures.append("sqlite: python3 could not count the rows")
      return result
    }
    result.rows = rows
    result.distinctRows = distinct
    if rows != processes * transactions || distinct != rows {
      result.failures.append(
        "sqlite: \(rows) rows (\(distinct) distinct), not \(processes * transactions)")
    }
    return result
  }

  /// Runs the script once in `mode`; returns the words after `done`, or `nil` when it failed.
  private static func runOnce(_ python: String, _ arguments: [String]) -> [String]? {
    guard let child = try? ChildProcess(executable: python, arguments: ["-c", script] + arguments)
    else { return nil }
    let done = child.readRemainingLines().last { $0.hasPrefix("done ") }
    guard child.wait().succeeded, let done else { return nil }
    return done.split(separator: " ").dropFirst().map(String.init)
  }
}
