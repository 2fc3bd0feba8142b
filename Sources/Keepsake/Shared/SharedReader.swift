import Foundation

/// Read-only access to a shared value: for code that may observe a key but must not change it.
///
/// ```swift
/// @SharedReader(.appStorage("isPro")) var isPro = false
/// ```
@propertyWrapper
public struct SharedReader<Value: Sendable>: Sendable {
  let reference: SharedReference<Value>

  /// Read-only access to the value stored by `key`, with a default used when nothing is stored.
  public init(wrappedValue: @autoclosure () -> Value, _ key: some SharedKey<Value>) {
    self.reference = StorageContext.current.reference(for: key, default: wrappedValue)
  }

  /// Read-only access to the same reference as `shared`.
  public init(_ shared: Shared<Value>) {
    self.reference = shared.reference
  }

  /// The current value; observable.
  public var wrappedValue: Value { reference.value }

  /// The reader itself, for `$value.loadError` and the other members.
  public var projectedValue: SharedReader<Value> { self }

  /// Why the stored data could not be read, or `nil`; observable.
  public var loadError: SharedLoadError? { reference.loadError }

  /// Reads the stored value again.
  ///
  /// - Throws: ``SharedLoadError`` when the data exists but cannot be read.
  public func load() async throws { try await reference.load() }
}

extension Shared {
  /// Read-only access to this reference.
  public var reader: SharedReader<Value> { SharedReader(self) }
}
