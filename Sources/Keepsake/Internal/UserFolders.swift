import Foundation

/// The per-user folders Keepsake keeps its own files in, decided by one rule on every platform.
///
/// The XDG variables win everywhere, Apple platforms included, so that two "devices" run on one
/// Mac (as the README's Syncthing walk-through does) keep two identities and two base stores.
/// Without them, Apple platforms use the app's Application Support folder and the others the
/// XDG defaults under the home folder.
///
/// NB: `FileManager.homeDirectoryForCurrentUser` is unavailable on iOS, tvOS, watchOS and
/// visionOS; `NSHomeDirectory()` is available everywhere (an app's container on iOS).
enum UserFolders {
  /// `$HOME` when it is an absolute path, else the system's home folder for this process.
  static func home(environment: [String: String]) -> URL {
    if let home = environment["HOME"], home.hasPrefix("/") {
      return URL(fileURLWithPath: home, isDirectory: true)
    }
    return URL(fileURLWithPath: NSHomeDirectory(), isDirectory: true)
  }

  /// The folder for state kept per device: `$XDG_STATE_HOME`, else `applicationSupport`
  /// (Apple platforms), else `~/.local/state`.
  static func state(environment: [String: String], applicationSupport: URL?) -> URL {
    if let state = environment["XDG_STATE_HOME"], state.hasPrefix("/") {
      return URL(fileURLWithPath: state, isDirectory: true)
    }
    if let applicationSupport { return applicationSupport }
    return home(environment: environment)
      .appendingPathComponent(".local/state", isDirectory: true)
  }

  /// The folder for preferences: `$XDG_CONFIG_HOME`, else `~/.config`.
  static func configuration(environment: [String: String]) -> URL {
    if let config = environment["XDG_CONFIG_HOME"], config.hasPrefix("/") {
      return URL(fileURLWithPath: config, isDirectory: true)
    }
    return home(environment: environment).appendingPathComponent(".config", isDirectory: true)
  }

  /// The platform's Application Support folder where apps are expected to use one (Apple
  /// platforms), else `nil`.
  static var applicationSupport: URL? {
    #if canImport(Darwin)
      return FileManager.default.urls(for: .applicationSupportDirectory, in: .userDomainMask)
        .first
    #else
      return nil
    #endif
  }
}
