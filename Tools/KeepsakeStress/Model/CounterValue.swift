import Foundation

/// The value the crash and two-process campaigns write: a counter, the writer that wrote it, and
/// a payload of drafts-like records, so every save is a realistic 20-100 KB file.
///
/// Every value is fully determined by its writer and counter (see ``make(writer:counter:records:)``),
/// so a reader can check that what it read is exactly what some writer wrote: a torn or mixed
/// file fails ``isComplete``.
public struct CounterValue: Codable, Equatable, Sendable {
  /// One drafts-like record of the payload.
  public struct Record: Codable, Equatable, Sendable {
    /// A stable identity, as a UUID string.
    public var id: String
    /// Text of a realistic length, with non-ASCII characters.
    public var body: String
    /// Whether the record is pinned.
    public var pinned: Bool
    /// A few labels.
    public var tags: [String]
  }

  /// Grows by one with every save of a writer.
  public var counter: Int
  /// Who wrote the value (`crash`, `A`, `B`, ...).
  public var writer: String
  /// The records.
  public var payload: [Record]

  /// The number of records in a value unless a campaign asks otherwise (about 55 KB of JSON).
  public static let defaultRecordCount = 300

  /// The value `writer` saves as its `counter`-th value.
  ///
  /// The payload changes with the counter (one record's body and the pinned flags), so
  /// consecutive files differ in their middle, not only in their first bytes.
  public static func make(
    writer: String, counter: Int, records: Int = defaultRecordCount
  ) -> CounterValue {
    let payload = (0..<records).map { index in
      Record(
        id: Self.identifier(index),
        body: index == counter % max(records, 1)
          ? "\(writer) #\(counter): \(Self.text(index)) (edited)" : Self.text(index),
        pinned: (index + counter) % 7 == 0,
        tags: index % 3 == 0 ? ["trabajo", "\(writer)-\(counter % 10)"] : []
      )
    }
    return CounterValue(counter: counter, writer: writer, payload: payload)
  }

  /// Whether this value is exactly one that ``make(writer:counter:records:)`` produces: nothing
  /// torn, nothing mixed from two writes.
  public var isComplete: Bool {
    self == Self.make(writer: writer, counter: counter, records: payload.count)
  }

  private static func identifier(_ index: Int) -> String {
    let hex = String(index, radix: 16, uppercase: true)
    return "8A4F1B63-2E5D-4C9A-B7E8-" + String(repeating: "0", count: max(0, 12 - hex.count)) + hex
  }

  private static let phrases = [
    "Plan de la semana: lunes gimnasio, martes inglés, miércoles compras",
    "東京で買うもの：抹茶、文房具、お土産",
    "Llamar a la dentista antes del viernes 🦷",
    "Ελληνικά και русский в одной заметке",
  ]

  private static func text(_ index: Int) -> String {
    "\(phrases[index % phrases.count]) — nota \(index)"
  }
}
