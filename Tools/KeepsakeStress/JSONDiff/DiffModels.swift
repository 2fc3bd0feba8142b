import Foundation

/// A model using every kind of value Foundation's JSON coders treat differently: each integer
/// width, both float types, Date, Data, URL, UUID, Decimal, optionals, arrays, dictionaries with
/// string and integer keys, enums with raw and associated values, and a recursive tree.
struct DiffDocument: Codable, Equatable, Sendable {
  var id: UUID
  var title: String
  var note: String?
  var count: Int
  var small: Int8
  var byte: UInt8
  var big: Int64
  var unsigned: UInt64
  var ratio: Double
  var single: Float
  var flag: Bool
  var created: Date
  var blob: Data
  var link: URL?
  var amount: Decimal
  var numbers: [Int]
  var scores: [String: Double]
  var byIndex: [Int: String]
  var children: [DiffItem]
  var nested: [[String?]]
  var choice: DiffChoice
  var kind: DiffKind
  var level: DiffLevel
  var tree: DiffTree?
}

/// An element of a document: a few fields, some optional, some absent when nil.
struct DiffItem: Codable, Equatable, Sendable {
  var name: String
  var value: Double?
  var tags: [String]
  var flags: [Bool?]
  var id: UUID?
}

/// An enum with associated values (synthesized: a keyed container per case).
enum DiffChoice: Codable, Equatable, Sendable {
  case none
  case text(String)
  case pair(Int, label: String?)
  case item(DiffItem)
}

enum DiffKind: String, Codable, Equatable, Sendable, CaseIterable {
  case plain, fancy
  case `super` = "super"
  case slash = "a/b"
  case quote = "\"q\""
  case unicode = "ünï"
}

enum DiffLevel: Int, Codable, Equatable, Sendable, CaseIterable {
  case low = -1
  case mid = 0
  case high = 9_999
}

/// A recursive value, for nesting as deep as a test wants.
indirect enum DiffTree: Codable, Equatable, Sendable {
  case leaf(Int)
  case list([DiffTree])
  case node(String, DiffTree)
}

/// Any JSON value, decoded by trying each kind in turn: it reads every document either decoder
/// accepts, so acceptance and values can be compared on any input.
enum DiffJSON: Decodable, Equatable {
  case null
  case bool(Bool)
  case int(Int)
  case double(Double)
  case string(String)
  case array([DiffJSON])
  case object([String: DiffJSON])

  init(from decoder: any Decoder) throws {
    if let container = try? decoder.singleValueContainer() {
      if container.decodeNil() {
        self = .null
        return
      }
      if let bool = try? container.decode(Bool.self) {
        self = .bool(bool)
        return
      }
      if let int = try? container.decode(Int.self) {
        self = .int(int)
        return
      }
      if let double = try? container.decode(Double.self) {
        self = .double(double)
        return
      }
      if let string = try? container.decode(String.self) {
        self = .string(string)
        return
      }
    }
    if var array = try? decoder.unkeyedContainer() {
      var elements: [DiffJSON] = []
      while !array.isAtEnd { elements.append(try array.decode(DiffJSON.self)) }
      self = .array(elements)
      return
    }
    let object = try decoder.container(keyedBy: DiffAnyKey.self)
    var members: [String: DiffJSON] = [:]
    for key in object.allKeys {
      members[key.stringValue] = try object.decode(DiffJSON.self, forKey: key)
    }
    self = .object(members)
  }
}

/// Any key.
struct DiffAnyKey: CodingKey, Hashable {
  var stringValue: String
  var intValue: Int?
  init(stringValue: String) {
    self.stringValue = stringValue
    self.intValue = Int(stringValue)
  }
  init(intValue: Int) {
    self.stringValue = "\(intValue)"
    self.intValue = intValue
  }
}

/// A drafts file as the app reads it: the envelope, with the current model inside.
struct DiffEnvelope<Content: Codable & Equatable & Sendable>: Codable, Equatable, Sendable {
  var content: Content
  var version: Int
}
