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
  var propertyListObject: Any {
    switch self {
    case .bool(let value): return value
    case .int(let value): return value
    case .double(let value): return value
    case .string(let value): return value
    case .data(let value): return value
    case .date(let value): return value
    case .url(let value): return value.absoluteString
    case .strings(let value): return value
    }
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
