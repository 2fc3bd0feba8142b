import Keepsake
import Synchronization

/// The defaults of one scope root (an app process, a test, a test store) and where its test
/// failures go.
///
/// Every ``DependencyValues`` derived from a root shares it, so a default is made once for the
/// root and reused: the incrementing UUID generator a test's first read made is the one every
/// later read in that test counts on with.
package final class DependencyContext: Sendable {
  /// The default values made so far, by key.
  private let defaults = Mutex<[ObjectIdentifier: any Sendable]>([:])
  /// Collects failures for a `TestStore`, which reports them at the line of its next step;
  /// `nil` reports them at once.
  let issues: DependencyIssueLog?
  /// Which of a key's values is the default: test values in a test process, preview values in an
  /// Xcode preview, live values in an app.
  let runContext: RunContext

  /// A root with no defaults made yet, for a process of the kind `runContext` (this process's,
  /// unless a test says otherwise).
  package init(
    issues: DependencyIssueLog? = nil, runContext: RunContext = TestDetector.runContext
  ) {
    self.issues = issues
    self.runContext = runContext
  }

  /// The default of `key`, made on first use: its test value when the process runs tests, its
  /// preview value in an Xcode preview, else its live value.
  func defaultValue<Key: DependencyKey>(for key: Key.Type, name: String) -> Key.Value {
    let id = ObjectIdentifier(key)
    if let value = defaults.withLock({ $0[id] }) as? Key.Value { return value }
    // NB: made outside the lock: a default may read other dependencies, which would deadlock
    // on this (non-recursive) lock. Two first reads at once both make one; the first stored wins.
    let resolution = Resolution(name: name, issues: issues, site: DependencySite.current)
    let made = Resolution.$current.withValue(resolution) { () -> Key.Value in
      switch runContext {
      case .test: Key.testValue
      case .preview: Key.previewValue
      case .live: Key.liveValue
      }
    }
    return defaults.withLock { defaults in
      if let value = defaults[id] as? Key.Value { return value }
      defaults[id] = made
      return made
    }
  }

  // MARK: - Roots

  private struct Root {
    weak var storage: StorageContext?
    let context: DependencyContext
  }

  private static let roots = Mutex<[ObjectIdentifier: Root]>([:])

  /// The root of work outside any scope: one per storage context, so one per app process and
  /// one per test, the way each test gets storage of its own.
  static func root(for storage: StorageContext) -> DependencyContext {
    let id = ObjectIdentifier(storage)
    return roots.withLock { roots in
      if let root = roots[id], root.storage === storage { return root.context }
      // A test's context goes away with its test; forget its defaults with it.
      roots = roots.filter { $0.value.storage != nil }
      let context = DependencyContext()
      roots[id] = Root(storage: storage, context: context)
      return context
    }
  }
}

/// Failures of dependencies read under a `TestStore`, kept until the store reports them.
///
/// A failure in an effect, or in a detached task it started, has no current test to be reported
/// to; the store reports it at the line of its next step, inside the test.
package final class DependencyIssueLog: Sendable {
  private let messages = Mutex<[String]>([])

  /// An empty log.
  package init() {}

  func record(_ message: String) {
    messages.withLock { $0.append(message) }
  }

  /// The failures recorded since the last call, oldest first.
  package func drain() -> [String] {
    messages.withLock { messages in
      defer { messages = [] }
      return messages
    }
  }
}
