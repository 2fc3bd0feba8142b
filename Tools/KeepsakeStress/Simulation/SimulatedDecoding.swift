import Foundation

/// Reads the simulation's files with Foundation's `JSONSerialization`, not with Keepsake: what
/// the checker and the outside writers take the bytes to mean.
enum SimulatedDecoding {
  /// The names the bytes of `file` hold, `[]` for no file, or `nil` when they cannot be read
  /// (empty, cut short, another shape, a version from the future).
  static func names(in data: Data?, of file: SimulatedFile) -> [String]? {
    guard let data else { return [] }
    guard !data.isEmpty,
      let object = try? JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed])
    else { return nil }
    switch file {
    case .items:
      guard let elements = object as? [Any] else { return nil }
      var names: [String] = []
      names.reserveCapacity(elements.count)
      for element in elements {
        guard let fields = element as? [String: Any], let id = fields["id"] as? String else {
          return nil
        }
        names.append(id)
      }
      return names
    case .notes:
      guard let envelope = object as? [String: Any], envelope.count == 2,
        let version = envelope["version"] as? Int, version == 1,
        let content = envelope["content"] as? [Any]
      else { return nil }
      var names: [String] = []
      for element in content {
        guard let name = element as? String else { return nil }
        names.append(name)
      }
      return names
    }
  }
}
