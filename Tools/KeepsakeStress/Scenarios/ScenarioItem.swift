import Foundation

/// An element of the scenario children's lists: an identity and a text, so a three-way merge
/// keeps both sides' elements and an edit is told from the element it changed.
public struct ScenarioItem: Codable, Identifiable, Equatable, Sendable {
  /// What names the element.
  public var id: String
  /// Its content.
  public var text: String

  /// An element named `id`.
  public init(_ id: String, text: String = "") {
    self.id = id
    self.text = text
  }
}
