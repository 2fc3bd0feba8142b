import DraftsFeature
import Foundation
import Keepsake

// NB: one concept, a little over 300 lines: a batch of differential cases, each kind a short
// branch of `CaseRun.perform()`, and the comparisons they share; the inputs, values and models
// live in the other files of this folder.

/// Runs a range of the differential campaign's cases in this process: Keepsake's JSON codec and
/// Foundation's on the same values and bytes, tallying every disagreement.
///
/// The cases cycle through five kinds: (0) a random value through both encoders (the bytes must
/// be identical, or both must refuse it with the same error), then both decoders; (1) a damaged
/// encoding of a random value, (2) a damaged drafts fixture, (3) the table of corners, then random
/// JSON text (damaged half the time), each through both decoders as several types; (4) random
/// drafts in an envelope, an older model's save of drafts with the members it does not know kept
/// (see `DiffKeptMembers`), drafts written again after edits through the encoder's memo (see
/// `DiffWrittenAgain`), and containers nested around Foundation's 512-level limit.
public struct JSONDiffBatch: Sendable {
  /// What a batch found; printed by a child as one line of JSON.
  public struct Result: Codable, Sendable, Equatable {
    /// Cases run.
    public var cases = 0
    /// Values both encoders wrote, byte for byte the same.
    public var encoded = 0
    /// Values both encoders refused with the same error.
    public var encodingRefused = 0
    /// Documents decoded as one type by both decoders.
    public var decoded = 0
    /// Of those, accepted by both with equal values.
    public var accepted = 0
    /// Of those, refused by both with the same error case, coding path and message.
    public var refused = 0
    /// The deepest nesting refused with a clean error by both.
    public var deepestRefused = 0
    /// Files an older model saved with the members it does not know kept, byte for byte what a
    /// full encode writes (see `DiffKeptMembers`).
    public var keptMembers = 0
    /// Arrays written again after edits through the memo of their last writing, byte for byte
    /// what a full encode writes (see `DiffWrittenAgain`).
    public var writtenAgain = 0
    /// One line per disagreement, naming the case.
    public var differences: [String] = []

    /// An empty tally.
    public init() {}

    /// Adds another batch's tally.
    public mutating func add(_ other: Result) {
      cases += other.cases
      encoded += other.encoded
      encodingRefused += other.encodingRefused
      decoded += other.decoded
      accepted += other.accepted
      refused += other.refused
      deepestRefused = max(deepestRefused, other.deepestRefused)
      keptMembers += other.keptMembers
      writtenAgain += other.writtenAgain
      differences += other.differences
    }
  }

  /// The run's seed.
  public var seed: UInt64
  /// The case indices.
  public var range: Range<Int>
  /// Changes Keepsake's encoded bytes and its decoder's input (see the campaign's configuration).
  public var tamper: @Sendable (Data) -> Data = { $0 }

  /// A batch of the cases `range` of the run with `seed`.
  public init(seed: UInt64, range: Range<Int>) {
    self.seed = seed
    self.range = range
  }

  /// Runs every case of the batch.
  public func run() -> Result {
    var result = Result()
    for index in range {
      var run = CaseRun(seed: seed, index: index, tamper: tamper)
      run.perform()
      result.add(run.result)
    }
    return result
  }
}

/// One case: builds its inputs from the seed and index, and compares both codecs on them.
private struct CaseRun {
  let index: Int
  var values: DiffValues
  var result = JSONDiffBatch.Result()
  var label = ""
  /// The bytes being decoded, saved with a difference so it can be examined.
  var input = Data()

  let tamper: @Sendable (Data) -> Data

  init(seed: UInt64, index: Int, tamper: @escaping @Sendable (Data) -> Data) {
    self.index = index
    self.tamper = tamper
    self.values = DiffValues(seed: seed, item: index)
  }

  mutating func perform() {
    result.cases = 1
    let round = index / 5
    switch index % 5 {
    case 0 where round % 3 == 1:
      let steps = (0..<Int.random(in: 1...12, using: &values.random)).map { _ in
        Int.random(in: 0..<DiffOddEncoding.stepCount, using: &values.random)
      }
      label = "containers used oddly, steps \(steps)"
      let value = DiffOddEncoding(steps: steps, depth: Int.random(in: 0...2, using: &values.random))
      if let bytes = compareEncoding(value) { compareDecoding(DiffJSON.self, bytes) }
    case 0:
      label = "random value"
      var document = values.document()
      if values.chance(10) {
        switch Int.random(in: 0..<4, using: &values.random) {
        case 0: document.ratio = values.pick([.nan, .infinity, -.infinity])
        case 1: document.single = values.pick([.nan, .infinity, -.infinity])
        case 2: document.created = Date(timeIntervalSinceReferenceDate: .nan)
        default: document.scores["bad"] = -.infinity
        }
        label = "random value with a non-finite float"
      }
      if let bytes = compareEncoding(document) { compareDecoding(DiffDocument.self, bytes) }
    case 1:
      let original = (try? Self.foundationEncoder.encode(values.document())) ?? Data()
      let kind = values.pick(Mutator.Kind.allCases)
      let (bytes, damage) = Mutator.mutate(original, kind: kind, using: &values.random)
      label = "random value, \(kind.rawValue): \(damage.prefix(120))"
      compareDecoding(DiffDocument.self, bytes)
      compareDecoding(DiffJSON.self, bytes)
      compareDecoding(DiffInspector.self, bytes)
    case 2:
      let fixture = values.pick(Fixtures.all)
      let kind = values.pick(Mutator.Kind.allCases)
      let (bytes, damage) = Mutator.mutate(fixture.bytes, kind: kind, using: &values.random)
      label = "\(fixture.name), \(kind.rawValue): \(damage.prefix(120))"
      compareDecoding([Draft].self, bytes)
      compareMemoDecoding(Draft.self, bytes, after: fixture.bytes)
      compareDecoding(DiffEnvelope<[Draft]>.self, bytes)
      compareDecoding(DiffInspector.self, bytes)
    case 3:
      var bytes: [UInt8]
      if round < DiffInputs.edges.count {
        bytes = DiffInputs.edges[round]
        label =
          "corner \(round): \(String(decoding: bytes.prefix(60), as: UTF8.self).debugDescription)"
      } else {
        bytes = DiffInputs.text(using: &values)
        label = "random text"
        if values.chance(50) {
          let kind = values.pick(Mutator.Kind.allCases)
          let (damaged, damage) = Mutator.mutate(Data(bytes), kind: kind, using: &values.random)
          compareMemoDecoding(DiffJSON.self, damaged, after: Data(bytes))
          bytes = [UInt8](damaged)
          label = "random text, \(kind.rawValue): \(damage.prefix(120))"
        }
      }
      let data = Data(bytes)
      if round >= DiffInputs.edges.count, values.chance(50) {
        // An array read again after a writer changed it, through the memo of the first reading.
        let (before, after, edit) = DiffInputs.arrayEdit(using: &values)
        let saved = label
        label = "array read again, \(edit)"
        compareMemoDecoding(DiffJSON.self, Data(after), after: Data(before))
        label = saved
      }
      compareDecoding(DiffJSON.self, data)
      compareDecoding(DiffNest.self, data)
      compareDecoding([Draft].self, data)
      compareDecoding(DiffDocument.self, data)
      if Self.nesting(of: data) <= 64 { compareDecoding(DiffInspector.self, data) }
    default:
      label = "drafts in an envelope"
      let drafts = (0..<Int.random(in: 0...20, using: &values.random)).map { _ in
        Draft(
          id: UUID(), body: values.string(maxPieces: 30), pinned: values.chance(20),
          tags: (0..<Int.random(in: 0...3, using: &values.random)).map { _ in values.key() })
      }
      if let bytes = compareEncoding(DiffEnvelope(content: drafts, version: 3)) {
        compareDecoding(DiffEnvelope<[Draft]>.self, bytes)
      }
      if round % 4 == 1 {
        label = "an older model's save, the members it does not know kept"
        if let difference = DiffKeptMembers.check(using: &values, encoder: Self.foundationEncoder) {
          differ(difference)
        } else {
          result.keptMembers += 1
        }
      }
      if round % 4 == 3 {
        label = "drafts written again after edits, through the memo"
        if let difference = DiffWrittenAgain.check(
          drafts, using: &values, encoder: Self.foundationEncoder)
        {
          differ(difference)
        } else {
          result.writtenAgain += 1
        }
      }
      if round % 20 == 0 {
        let depth = values.pick([1, 100, 510, 511, 512, 513, 600])
        label = "arrays nested \(depth) deep"
        if let bytes = compareEncoding(DiffNest(depth: depth)) {
          compareDecoding(DiffNest.self, bytes)
        }
      }
    }
  }

  // MARK: - Comparing

  static let foundationEncoder: JSONEncoder = {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys]
    return encoder
  }()

  /// Encodes `value` with both encoders; returns the bytes when both wrote the same.
  mutating func compareEncoding<T: Encodable>(_ value: T) -> Data? {
    let keepsake = Swift.Result { tamper(try KeepsakeJSONEncoder().encode(value)) }
    let foundation = Swift.Result { try Self.foundationEncoder.encode(value) }
    switch (keepsake, foundation) {
    case (.success(let ours), .success(let theirs)):
      guard ours == theirs else {
        let offset =
          zip(ours, theirs).enumerated().first { $0.element.0 != $0.element.1 }?.offset
          ?? min(ours.count, theirs.count)
        differ(
          "\(T.self): encodings differ at byte \(offset): keepsake "
            + String(decoding: ours.dropFirst(max(0, offset - 20)).prefix(60), as: UTF8.self)
            .debugDescription
            + ", foundation "
            + String(decoding: theirs.dropFirst(max(0, offset - 20)).prefix(60), as: UTF8.self)
            .debugDescription)
        return nil
      }
      result.encoded += 1
      return theirs
    case (.failure(let ours), .failure(let theirs)):
      if Self.describeEncoding(ours) == Self.describeEncoding(theirs) {
        result.encodingRefused += 1
      } else {
        differ(
          "\(T.self): keepsake threw \(Self.describeEncoding(ours)), foundation threw "
            + Self.describeEncoding(theirs))
      }
    case (.success, .failure(let theirs)):
      differ("\(T.self): keepsake encoded, foundation threw \(Self.describeEncoding(theirs))")
    case (.failure(let ours), .success):
      differ("\(T.self): keepsake threw \(Self.describeEncoding(ours)), foundation encoded")
    }
    return nil
  }

  /// Decodes `data` as `T` with both decoders and compares values or errors.
  mutating func compareDecoding<T: Decodable & Equatable>(_ type: T.Type, _ data: Data) {
    compare(
      type, data,
      keepsake: Swift.Result { try KeepsakeJSONDecoder().decode(type, from: tamper(data)) })
  }

  /// Decodes `data` as an array of `Element`s with Keepsake's decoder reusing the memo of
  /// reading `before` (as a file key reads a file again after a change), and compares it with
  /// Foundation's reading of `data` alone.
  mutating func compareMemoDecoding<Element: Decodable & Equatable>(
    _ type: Element.Type, _ data: Data, after before: Data
  ) {
    let decoder = KeepsakeJSONDecoder()
    let memo = (try? decoder.decodeArray(of: type, from: before, reusing: nil))?.memo
    let keepsake = Swift.Result {
      try decoder.decodeArray(of: type, from: tamper(data), reusing: memo).elements
    }
    compare([Element].self, data, keepsake: keepsake, what: "[\(Element.self)] read again")
  }

  /// Compares Keepsake's outcome of decoding `data` as `T` with Foundation's.
  private mutating func compare<T: Decodable & Equatable>(
    _ type: T.Type, _ data: Data, keepsake: Swift.Result<T, any Error>, what: String? = nil
  ) {
    result.decoded += 1
    input = data
    let foundation = Swift.Result { try Self.foundationDecode(type, from: data) }
    let name = what ?? "\(T.self)"
    switch (keepsake, foundation) {
    case (.success(let ours), .success(let theirs)):
      if ours == theirs {
        result.accepted += 1
      } else {
        differ("\(name): both decoded, to different values\(Self.explain(ours, theirs))")
      }
    case (.failure(let ours), .failure(let theirs)):
      let (mine, other) = (DiffInspector.describe(ours), DiffInspector.describe(theirs))
      if mine == other {
        result.refused += 1
        result.deepestRefused = max(result.deepestRefused, Self.nesting(of: data))
      } else {
        differ("\(name): keepsake threw \(mine); foundation threw \(other)")
      }
    case (.success, .failure(let theirs)):
      differ("\(name): keepsake decoded; foundation threw \(DiffInspector.describe(theirs))")
    case (.failure(let ours), .success):
      differ("\(name): keepsake threw \(DiffInspector.describe(ours)); foundation decoded")
    }
  }

  /// Foundation's decoder, kept from the input that traps it (see `JSONCoding.decode` in Keepsake):
  /// a document whose last byte opens an array is invalid JSON, which Foundation reports so.
  static func foundationDecode<T: Decodable>(_ type: T.Type, from data: Data) throws -> T {
    guard data.last != UInt8(ascii: "[") else {
      throw DecodingError.dataCorrupted(
        .init(codingPath: [], debugDescription: "The given data was not valid JSON."))
    }
    return try JSONDecoder().decode(type, from: data)
  }

  /// Where two inspections part, when the values are inspections.
  static func explain<T>(_ ours: T, _ theirs: T) -> String {
    guard let ours = ours as? DiffInspector, let theirs = theirs as? DiffInspector else {
      return ""
    }
    let lines = zip(ours.log, theirs.log)
    guard let (mine, other) = lines.first(where: { $0.0 != $0.1 }) else {
      return ": \(ours.log.count) log lines against \(theirs.log.count)"
    }
    func split(_ line: String) -> [Substring] {
      line.split(separator: " | ", omittingEmptySubsequences: false)
    }
    let (a, b) = (split(mine), split(other))
    let part = zip(a, b).first { $0.0 != $0.1 }.map {
      ": keepsake \($0.0.prefix(160)), foundation \($0.1.prefix(160))"
    }
    return part ?? ": keepsake \(mine.prefix(160)), foundation \(other.prefix(160))"
  }

  static func describeEncoding(_ error: any Error) -> String {
    guard case .invalidValue(let value, let context) = error as? EncodingError else {
      return "\(type(of: error))"
    }
    return
      "invalidValue(\(type(of: value))) \(DiffInspector.renderPath(context.codingPath)) "
      + context.debugDescription
  }

  /// The deepest nesting of brackets in `data`, ignoring strings roughly (for labels and limits).
  static func nesting(of data: Data) -> Int {
    var depth = 0
    var deepest = 0
    for byte in data {
      if byte == UInt8(ascii: "[") || byte == UInt8(ascii: "{") {
        depth += 1
        deepest = max(deepest, depth)
      } else if byte == UInt8(ascii: "]") || byte == UInt8(ascii: "}") {
        depth -= 1
      }
    }
    return deepest
  }

  mutating func differ(_ what: String) {
    let saved = FileManager.default.temporaryDirectory.appendingPathComponent(
      "keepsake-json-diff-\(index)-\(result.differences.count).json")
    try? input.write(to: saved)
    result.differences.append(
      "case \(index) (\(label)): \(what.prefix(400)); input saved to \(saved.path)")
  }
}
