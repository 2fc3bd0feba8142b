import Foundation

/// Where the drafts inbox is stored.
public enum DraftsLocation {
  /// The environment variable that overrides the store's path.
  public static let environmentVariable = "KEEPSAKE_DRAFTS_STORE"

  /// The environment variables that name the store, the first one set deciding.
  public static let variables = [environmentVariable, "XDG_DATA_HOME", "HOME"]

  /// The store's file: `KEEPSAKE_DRAFTS_STORE` when set, else
  /// `$XDG_DATA_HOME/keepsake-drafts/drafts.json`, else
  /// `~/.local/share/keepsake-drafts/drafts.json`.
  public static func url(environment: [String: String]) -> URL {
    if let override = environment[environmentVariable], !override.isEmpty {
      return URL(fileURLWithPath: override)
    }
    let base: URL
    if let data = environment["XDG_DATA_HOME"], !data.isEmpty {
      base = URL(fileURLWithPath: data, isDirectory: true)
    } else {
      // NB: `homeDirectoryForCurrentUser` is macOS only; `NSHomeDirectory()` is everywhere.
      let home = environment["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? NSHomeDirectory()
      base = URL(fileURLWithPath: home, isDirectory: true)
        .appendingPathComponent(".local/share", isDirectory: true)
    }
    return base.appendingPathComponent("keepsake-drafts/drafts.json")
  }
}
