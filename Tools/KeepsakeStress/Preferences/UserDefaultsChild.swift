import Foundation
import Keepsake

/// The child process of the `UserDefaultsPreferences` tests: swift-corelibs `UserDefaults` writes
/// under `$XDG_CONFIG_HOME`, so it is exercised only in a child whose home and configuration
/// folders are temporary, never the developer's own.
public enum UserDefaultsChild {
  /// Runs one command against the suite and returns what it prints.
  ///
  /// Commands: `set KEY int|bool|string VALUE`, `remove KEY`, `get KEY`.
  public static func run(suite: String, command: [String]) -> String {
    let store = UserDefaultsPreferences(suiteName: suite)
    switch command.first {
    case "set" where command.count == 4:
      let value: PreferenceValue?
      switch command[2] {
      case "int": value = Int(command[3]).map(PreferenceValue.int)
      case "bool": value = Bool(command[3]).map(PreferenceValue.bool)
      default: value = .string(command[3])
      }
      store.set(value, forKey: command[1])
      return flushed(store)
    case "remove" where command.count == 2:
      store.set(nil, forKey: command[1])
      return flushed(store)
    case "get" where command.count == 2:
      return store.value(forKey: command[1]).map { "value \($0)" } ?? "missing"
    default:
      return "usage: user-defaults SUITE set KEY int|bool|string VALUE | remove KEY | get KEY"
    }
  }

  private static func flushed(_ store: UserDefaultsPreferences) -> String {
    do {
      try store.flush()
      return "ok"
    } catch {
      return "error \(error)"
    }
  }
}
