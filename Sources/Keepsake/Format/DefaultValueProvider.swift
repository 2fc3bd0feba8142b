/// Supplies the value a ``Defaulted`` property takes when its key is missing from a file.
///
/// Keepsake provides the common ones in ``DefaultValue``; declare your own for anything else:
///
/// ```swift
/// nonisolated enum DefaultSortOrder: DefaultValueProvider {
///   static var defaultValue: SortOrder { .newestFirst }
/// }
/// ```
public protocol DefaultValueProvider {
  /// The property's type.
  associatedtype Value
  /// The value used for a missing key. It must not depend on when or where it is called.
  static var defaultValue: Value { get }
}

/// The common ``DefaultValueProvider``s: `false`, `true`, zero, empty collections and `nil`.
public enum DefaultValue {
  /// `false`.
  public enum False: DefaultValueProvider {
    /// `false`.
    public static var defaultValue: Bool { false }
  }

  /// `true`.
  public enum True: DefaultValueProvider {
    /// `true`.
    public static var defaultValue: Bool { true }
  }

  /// Zero of any numeric type: `@Defaulted<DefaultValue.Zero<Int>> var count: Int`.
  public enum Zero<Number: Numeric>: DefaultValueProvider {
    /// `0`.
    public static var defaultValue: Number { .zero }
  }

  /// An empty array or string: `@Defaulted<DefaultValue.Empty<[String]>> var tags: [String]`.
  public enum Empty<Collection: RangeReplaceableCollection>: DefaultValueProvider {
    /// An empty collection.
    public static var defaultValue: Collection { Collection() }
  }

  /// An empty set or option set: `@Defaulted<DefaultValue.EmptySet<Set<Int>>> var ids: Set<Int>`.
  public enum EmptySet<Set: SetAlgebra>: DefaultValueProvider {
    /// An empty set.
    public static var defaultValue: Set { Set() }
  }

  /// An empty dictionary: `@Defaulted<DefaultValue.EmptyDictionary<String, Int>> var counts`.
  public enum EmptyDictionary<Key: Hashable, Value>: DefaultValueProvider {
    /// `[:]`.
    public static var defaultValue: [Key: Value] { [:] }
  }

  /// `nil`, for an optional: `@Defaulted<DefaultValue.Nil<Date>> var archivedAt: Date?`.
  ///
  /// Unlike a plain optional property, this also encodes `nil` as `null`, so the key is always
  /// present in files written by this version.
  public enum Nil<Wrapped>: DefaultValueProvider {
    /// `nil`.
    public static var defaultValue: Wrapped? { nil }
  }
}
