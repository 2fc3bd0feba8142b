/// Callbacks registered under a name (a preference key, a file path), kept inside a substrate's
/// locked state: the in-memory file system's watchers, the preferences stores' observers.
struct KeyedObservers: Sendable {
  private var all: [Int: (name: String, onChange: @Sendable () -> Void)] = [:]
  private var next = 0

  /// How many are registered.
  var count: Int { all.count }

  /// Registers `onChange` under `name` and returns the id that removes it.
  mutating func add(_ name: String, _ onChange: @escaping @Sendable () -> Void) -> Int {
    defer { next += 1 }
    all[next] = (name, onChange)
    return next
  }

  mutating func remove(_ id: Int) { all[id] = nil }

  /// The callbacks of the names `matching` accepts, to be called once the lock is released.
  func callbacks(matching: (String) -> Bool) -> [@Sendable () -> Void] {
    all.values.filter { matching($0.name) }.map(\.onChange)
  }
}
