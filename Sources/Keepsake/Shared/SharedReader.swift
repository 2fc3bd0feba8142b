import Foundation

/// Read-only access to a shared value: for code that may observe a key but must not change it.
///
/// ```swift
/// @SharedReader(.appStorage("isPro")) var isPro = false
/// ```
@propertyWrapper
@dynamicMemberLookup
public struct SharedReader<Value: Sendable>: Sendable {
  /// The shared value read; never written through this reader.
  let shared: Shared<Value>

  /// Read-only access to the value stored by `key`, with a default used when nothing is stored.
  public init(wrappedValue: @autoclosure () -> Value, _ key: some SharedKey<Value>) {
    self.shared = Shared(wrappedValue: wrappedValue(), key)
  }

  /// Read-only access to the value stored by `key`, with a default used when nothing is stored.
  public init(_ key: some SharedKey<Value>, default: @autoclosure () -> Value) {
    self.shared = Shared(key, default: `default`())
  }

  /// Read-only access to the same reference as `shared`.
  public init(_ shared: Shared<Value>) {
    self.shared = shared
  }

  /// The current value; observable.
  public var wrappedValue: Value { shared.wrappedValue }

  /// The reader itself, for `$value.loadError` and the other members.
  public var projectedValue: SharedReader<Value> { self }

  /// Read-only access to a part of the value: `$settings.theme`.
  public subscript<Member: Sendable>(
    dynamicMember keyPath: WritableKeyPath<Value, Member>
  ) -> SharedReader<Member> {
    SharedReader<Member>(shared[dynamicMember: keyPath])
  }

  /// The identity of the key.
  public var keyID: SharedKeyID { shared.keyID }

  /// Why the stored data could not be read, or `nil`; observable.
  public var loadError: SharedLoadError? { shared.loadError }

  /// The current value first, then the value after each change; see ``Shared/values``.
  public var values: AsyncStream<Value> { shared.values }

  /// Reads the stored value again.
  ///
  /// - Throws: ``SharedLoadError`` when the data exists but cannot be read.
  public func load() async throws { try await shared.load() }
}

extension SharedReader: CustomStringConvertible {
  public var description: String { "SharedReader<\(Value.self)>(\(keyID)): \(wrappedValue)" }
}

extension SharedReader: Identifiable where Value: Identifiable {
  /// The identity of the value.
  public var id: Value.ID { wrappedValue.id }
}

extension Shared {
  /// Read-only access to this reference.
  public var reader: SharedReader<Value> { SharedReader(self) }
}
