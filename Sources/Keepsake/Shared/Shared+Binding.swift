// A SwiftUI binding of a shared value; written for Apple platforms, where SwiftUI exists (this
// project's CI, on Linux, never compiles it).
#if canImport(SwiftUI)
  import SwiftUI

  extension Binding {
    /// A binding that reads a shared value and writes it with `withLock`.
    ///
    /// Nonisolated.
    public init(_ shared: Shared<Value>) where Value: Sendable {
      self.init(get: { shared.wrappedValue }, set: { value in shared.withLock { $0 = value } })
    }
  }
#endif
