import Foundation
import Keepsake

/// The child process of the `UserDefaultsPreferences` tests: swift-corelibs `UserDefaults` writes
/// under `$XDG_CONFIG_HOME`, so it is exercised only in a child whose home and configuration
/// folders are temporary, never the developer's own.
public enum UserDefaultsChild {
  /// Runs one command against the suite and returns what it prints.
  ///
  /// Commands: `set KEY int|bool|string VALUE`, `remove KEY`, `get KEY`, and `shared-set KEY
  /// VALUE`, which saves a string through `@Shared(.appStorage(KEY, store: UserDefaults(suiteName:
  /// SUITE)))` in the live context. For URLs: `defaults-set-url KEY URL` (`UserDefaults`' own
  /// `set(_:forKey:)`), `defaults-set-archived-url KEY URL` (the archive Apple's `set(_:forKey:)`
  /// writes), `defaults-url KEY` (`url(forKey:)`, as SwiftUI's `@AppStorage` reads), and
  /// `shared-url KEY` and `shared-set-url KEY URL` through a `URL?` key in the live context.
  public static func run(suite: String, command: [String]) async -> String {
    let store = PreferencesStores.userDefaults(suiteName: suite)
    switch command.first {
    case "shared-set" where command.count == 3:
      guard let defaults = UserDefaults(suiteName: suite) else { return "error no suite \(suite)" }
      let shared = Shared(wrappedValue: "", .appStorage(command[1], store: defaults))
      shared.withLock { $0 = command[2] }
      do {
        try await shared.save()
        return "ok"
      } catch {
        return "error \(error)"
      }
    case "defaults-set-url" where command.count == 3,
      "defaults-set-archived-url" where command.count == 3:
      guard let defaults = UserDefaults(suiteName: suite), let url = URL(string: command[2])
      else { return "error no suite \(suite) or no URL" }
      if command[0] == "defaults-set-url" {
        defaults.set(url, forKey: command[1])
      } else {
        do {
          let archive = try NSKeyedArchiver.archivedData(
            withRootObject: url as NSURL, requiringSecureCoding: true)
          defaults.set(archive, forKey: command[1])
        } catch {
          return "error \(error)"
        }
      }
      return defaults.synchronize() ? "ok" : "error not synchronized"
    case "defaults-url" where command.count == 2:
      guard let defaults = UserDefaults(suiteName: suite) else { return "error no suite \(suite)" }
      return defaults.url(forKey: command[1]).map { "url \($0.absoluteString)" } ?? "missing"
    case "shared-url" where command.count == 2:
      guard let defaults = UserDefaults(suiteName: suite) else { return "error no suite \(suite)" }
      let key: AppStorageKey<URL?> = .appStorage(command[1], store: defaults)
      let shared = Shared(wrappedValue: nil, key)
      if let error = shared.loadError { return "error \(error)" }
      return shared.wrappedValue.map { "url \($0.absoluteString)" } ?? "missing"
    case "shared-set-url" where command.count == 3:
      guard let defaults = UserDefaults(suiteName: suite), let url = URL(string: command[2])
      else { return "error no suite \(suite) or no URL" }
      let key: AppStorageKey<URL?> = .appStorage(command[1], store: defaults)
      let shared = Shared(wrappedValue: nil, key)
      shared.withLock { $0 = url }
      do {
        try await shared.save()
        return "ok"
      } catch {
        return "error \(error)"
      }
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
        + " | shared-set KEY VALUE | defaults-set-url KEY URL | defaults-set-archived-url KEY URL"
        + " | defaults-url KEY | shared-url KEY | shared-set-url KEY URL"
    }
  }

  private static func flushed(_ store: any PreferencesStore) -> String {
    do {
      try store.flush()
      return "ok"
    } catch {
      return "error \(error)"
    }
  }
}
