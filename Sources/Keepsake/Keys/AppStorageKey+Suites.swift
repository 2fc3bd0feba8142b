import Foundation
import Synchronization

/// The `UserDefaults` objects keys were given (`store:`), per preferences suite, so a second
/// object for a suite already in use is reported, as swift-sharing reports it: two objects of
/// one suite keep separate caches and separate observers, so values written through one are
/// not seen (or not observed) through the other, and keys named by them are different keys.
enum UserDefaultsSuites {
  private struct Seen: @unchecked Sendable {
    // NB: `UserDefaults` is documented thread-safe; only compared by identity here.
    weak var object: UserDefaults?
    let suite: String?
  }

  private struct State {
    /// Every object seen, with its suite, so a key made again costs one lookup.
    var seen: [ObjectIdentifier: Seen] = [:]
    /// The first object seen for each suite.
    var first: [String: Seen] = [:]
  }

  private static let state = Mutex(State())

  /// Notes that a key for `key` uses `defaults`, and warns when another live object already
  /// stands for the same suite (once per object).
  static func noteUse(of defaults: UserDefaults, key: String) {
    let id = ObjectIdentifier(defaults)
    let known = state.withLock { $0.seen[id].map { $0.object === defaults } ?? false }
    guard !known else { return }
    let suite = suiteName(of: defaults)
    let other: Bool = state.withLock { state in
      state.seen = state.seen.filter { $0.value.object != nil }
      state.seen[id] = Seen(object: defaults, suite: suite)
      guard let suite else { return false }
      if let first = state.first[suite], let object = first.object, object !== defaults {
        return true
      }
      state.first[suite] = Seen(object: defaults, suite: suite)
      return false
    }
    guard other, let suite else { return }
    RuntimeWarning.emit(message(suite: suite, key: key), failingTheTest: true)
  }

  static func message(suite: String, key: String) -> String {
    "appStorage(\(String(reflecting: key)), store:) was given a second UserDefaults object for the "
      + "suite \(String(reflecting: suite)). Two objects of one suite do not see (or observe) each "
      + "other's changes, and keys named by them are different keys. Make one object per suite "
      + "and use it everywhere, for example `extension UserDefaults { nonisolated(unsafe) static "
      + "let mySuite = UserDefaults(suiteName: \(String(reflecting: suite)))! }`."
  }

  /// The suite `defaults` was made for, when the platform lets it be found; `nil` for the
  /// standard defaults.
  ///
  /// NB: neither Foundation says it publicly. On Apple platforms the object answers the
  /// `_identifier` message, as swift-sharing asks it; swift-corelibs keeps it in a stored
  /// property named `suite`.
  static func suiteName(of defaults: UserDefaults) -> String? {
    #if canImport(ObjectiveC)
      let selector = Selector(("_identifier"))
      guard defaults.responds(to: selector),
        let name = defaults.perform(selector)?.takeUnretainedValue() as? String
      else { return nil }
      return name
    #else
      return Mirror(reflecting: defaults).children.first { $0.label == "suite" }?.value as? String
    #endif
  }
}
