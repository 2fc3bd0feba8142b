import Foundation

/// A value a preferences store can hold: the property-list types `UserDefaults` supports.
///
/// Its `Codable` form, used by `FilePreferences`, is a readable one-key object per value:
/// `{"bool": true}`, `{"date": "2026-11-29T21:00:00Z"}`, `{"data": "<base64>"}`.
public enum PreferenceValue: Equatable, Sendable, Codable {
  case bool(Bool)
  case int(Int)
  case double(Double)
  case string(String)
  case data(Data)
  case date(Date)
  case url(URL)
  case strings([String])

  /// The value's type, as an indefinite noun ("a string"), for messages that must not show the
  /// value itself.
  var typeDescription: String {
    switch self {
    case .bool: "a Boolean"
    case .int: "an integer"
    case .double: "a floating-point number"
    case .string: "a string"
    case .data: "data"
    case .date: "a date"
    case .url: "a URL"
    case .strings: "an array of strings"
    }
  }

  /// The value as the property-list object `UserDefaults` stores.
  ///
  /// A URL is archived data, the form Apple's `UserDefaults.set(_:forKey:)` gives a URL and
  /// `url(forKey:)` reads on every platform (see ``archive(_:)``).
  var propertyListObject: Any {
    switch self {
    case .bool(let value): return value
    case .int(let value): return value
    case .double(let value): return value
    case .string(let value): return value
    case .data(let value): return value
    case .date(let value): return value
    case .url(let value): return Self.archive(value) ?? value.absoluteString
    case .strings(let value): return value
    }
  }
}

// MARK: - URLs in the forms UserDefaults keeps them

extension PreferenceValue {
  /// `url` archived as Apple's `UserDefaults.set(_:forKey:)` stores a URL: a keyed archive whose
  /// root is an `NSURL`; nil if it cannot be archived.
  ///
  /// NB: not swift-corelibs' `set(_:forKey:)`, which stores the URL's `path` as a string for every
  /// URL, so `https://example.com/a?b=c` would come back as `/a`.
  static func archive(_ url: URL) -> Data? {
    try? NSKeyedArchiver.archivedData(withRootObject: url as NSURL, requiringSecureCoding: true)
  }

  /// The URL in `data` archived the way ``archive(_:)`` (or Apple's `UserDefaults`) does; nil for
  /// any other data.
  ///
  /// NB: through the unarchiver's throwing entry point, which returns an error for data that is
  /// no archive. swift-corelibs' `UserDefaults.url(forKey:)` unarchives with the failure policy
  /// that traps instead, so it is never given data that was not checked here first.
  static func url(fromArchive data: Data) -> URL? {
    guard data.starts(with: Self.binaryPropertyListMagic) else { return nil }
    let object = try? NSKeyedUnarchiver.unarchivedObject(ofClass: NSURL.self, from: data)
    return object.map { $0 as URL }
  }

  /// What a keyed archive starts with: the magic of a binary property list.
  private static let binaryPropertyListMagic = Array("bplist".utf8)

  /// The URL a string preference names.
  ///
  /// A string with a scheme is that URL (how Keepsake stored URLs before, and how many apps do);
  /// a path (absolute, or from `~`) is a file URL, the way `UserDefaults.url(forKey:)` reads a
  /// string; anything else is a URL relative to nothing, as `URL(string:)` makes it.
  static func url(fromString text: String) -> URL? {
    if text.hasPrefix("/") || text.hasPrefix("~") {
      return URL(fileURLWithPath: NSString(string: text).expandingTildeInPath)
    }
    return URL(string: text)
  }
}

extension PreferenceValue {
  private enum Kind: String, CodingKey {
    case bool, int, double, string, data, date, url, strings
  }

  public init(from decoder: any Decoder) throws {
    let container = try decoder.container(keyedBy: Kind.self)
    guard let kind = container.allKeys.first, container.allKeys.count == 1 else {
      throw DecodingError.dataCorrupted(
        .init(
          codingPath: decoder.codingPath,
          debugDescription: "A preference must be an object with exactly one type key."))
    }
    switch kind {
    case .bool: self = .bool(try container.decode(Bool.self, forKey: kind))
    case .int: self = .int(try container.decode(Int.self, forKey: kind))
    case .double: self = .double(try container.decode(Double.self, forKey: kind))
    case .string: self = .string(try container.decode(String.self, forKey: kind))
    case .data: self = .data(try container.decode(Data.self, forKey: kind))
    case .date:
      let text = try container.decode(String.self, forKey: kind)
      // NB: the messages name what was expected, never the stored text (the user's value).
      guard let date = try? Date(text, strategy: .iso8601) else {
        throw DecodingError.dataCorruptedError(
          forKey: kind, in: container, debugDescription: "Not an ISO 8601 date")
      }
      self = .date(date)
    case .url:
      let text = try container.decode(String.self, forKey: kind)
      guard let url = URL(string: text) else {
        throw DecodingError.dataCorruptedError(
          forKey: kind, in: container, debugDescription: "Not a URL")
      }
      self = .url(url)
    case .strings: self = .strings(try container.decode([String].self, forKey: kind))
    }
  }

  public func encode(to encoder: any Encoder) throws {
    var container = encoder.container(keyedBy: Kind.self)
    switch self {
    case .bool(let value): try container.encode(value, forKey: .bool)
    case .int(let value): try container.encode(value, forKey: .int)
    case .double(let value): try container.encode(value, forKey: .double)
    case .string(let value): try container.encode(value, forKey: .string)
    case .data(let value): try container.encode(value, forKey: .data)
    case .date(let value):
      try container.encode(value.formatted(.iso8601), forKey: .date)
    case .url(let value): try container.encode(value.absoluteString, forKey: .url)
    case .strings(let value): try container.encode(value, forKey: .strings)
    }
  }
}
