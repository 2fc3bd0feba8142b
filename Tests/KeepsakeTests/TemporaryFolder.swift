import Foundation

/// A real folder under the system's temporary folder, removed when the test is done with it.
final class TemporaryFolder: Sendable {
  let url: URL

  init() throws {
    url = FileManager.default.temporaryDirectory
      .appendingPathComponent("keepsake-tests-\(UUID().uuidString)", isDirectory: true)
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
  }

  func file(_ name: String) -> URL { url.appendingPathComponent(name) }

  var names: [String] {
    ((try? FileManager.default.contentsOfDirectory(atPath: url.path)) ?? []).sorted()
  }

  deinit { try? FileManager.default.removeItem(at: url) }
}
