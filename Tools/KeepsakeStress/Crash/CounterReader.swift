import Foundation
import Keepsake

/// A child process that reads the counter file once through `@Shared`, as a freshly started app
/// would (`keepsake-stress reader`).
///
/// Starting the key also removes temporary files left by killed writers. It prints one line:
/// `value <counter> <writer> complete|incomplete`, `missing`, or `unreadable <reason>`.
public enum CounterReader {
  /// Reads `url` and prints what it found; returns the exit code (always 0: the parent judges).
  public static func run(url: URL) -> Int32 {
    StandardOutput.write(read(url: url))
    return 0
  }

  /// What a fresh `@Shared` finds in `url`, as the line ``run(url:)`` prints.
  public static func read(url: URL) -> String {
    StorageContext.withValue(.disk(name: "reader")) {
      let exists = FileManager.default.fileExists(atPath: url.path)
      @Shared(.fileStorage(url, format: CounterFormat.self))
      var value = CounterValue.make(writer: "none", counter: 0, records: 0)
      if let loadError = $value.loadError { return "unreadable \(loadError)" }
      guard exists else { return "missing" }
      return "value \(value.counter) \(value.writer) "
        + (value.isComplete ? "complete" : "incomplete")
    }
  }
}
