import DraftsFeature
import Foundation
import KeepsakeJSON
import Testing

/// Keepsake's JSON codec against Foundation's, on the corners where they could part.
///
/// One suite in three files: the encoder's corners in `KeepsakeJSONTests+Encoding.swift`, the
/// decoder's in `KeepsakeJSONTests+Decoding.swift`; here, what both compare with.
@Suite("Keepsake's JSON codec")
struct KeepsakeJSONTests {}

/// `ok <value>` or `error <case, type, path, message>`, comparable between decoders.
func outcome<T>(_ body: () throws -> T) -> String {
  do {
    let value = try body()
    if let data = value as? Data { return "ok \(String(decoding: data, as: UTF8.self))" }
    return "ok \(value)"
  } catch let error as DecodingError {
    func path(_ context: DecodingError.Context) -> String {
      "["
        + context.codingPath.map {
          "\($0.stringValue.debugDescription)#\($0.intValue.map(String.init) ?? "-")"
        }
        .joined(separator: ", ") + "]"
    }
    switch error {
    case .typeMismatch(let type, let context):
      return "error typeMismatch(\(type)) \(path(context)) \(context.debugDescription)"
    case .valueNotFound(let type, let context):
      return "error valueNotFound(\(type)) \(path(context)) \(context.debugDescription)"
    case .keyNotFound(let key, let context):
      return
        "error keyNotFound(\(key.stringValue.debugDescription)) \(path(context)) \(context.debugDescription)"
    case .dataCorrupted(let context):
      return "error dataCorrupted \(path(context)) \(context.debugDescription)"
    @unknown default:
      return "error \(error)"
    }
  } catch let error as EncodingError {
    guard case .invalidValue(let value, let context) = error else { return "error \(error)" }
    let keys = context.codingPath.map { "\($0.stringValue)#\($0.intValue.map(String.init) ?? "-")" }
    return "error invalidValue(\(type(of: value))) \(keys) \(context.debugDescription)"
  } catch {
    return "error \(error)"
  }
}

/// Arrays nested `depth` deep, through unkeyed containers.
struct Nest: Codable, Sendable {
  var depth: Int
  init(depth: Int) { self.depth = depth }
  init(from decoder: any Decoder) throws {
    var container = try decoder.unkeyedContainer()
    depth = container.isAtEnd ? 1 : try container.decode(Nest.self).depth + 1
  }
  func encode(to encoder: any Encoder) throws {
    var container = encoder.unkeyedContainer()
    if depth > 1 { try container.encode(Nest(depth: depth - 1)) }
  }
}

struct AnyKey: CodingKey {
  var stringValue: String
  var intValue: Int? { nil }
  init(_ name: String) { stringValue = name }
  init(stringValue: String) { self.stringValue = stringValue }
  init?(intValue: Int) { nil }
}
