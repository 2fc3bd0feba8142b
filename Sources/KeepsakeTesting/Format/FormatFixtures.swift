import Foundation
import Keepsake

/// The golden fixtures of a format: one file per historical version, each read through the
/// current migration chain.
///
/// A golden fixture stands for the files a shipped version of the app left on users' devices.
/// The test that reads every one of them through today's code is the one that must never start
/// failing, so it is one line:
///
/// ```swift
/// @Test func everyGoldenFixtureReads() {
///   FormatFixtures.expectAllReadable(DraftsFormat.self, name: "drafts", in: fixtures)
/// }
/// ```
///
/// Fixtures are named `<name>-v<N>.json`, one for every version from the chain's oldest to
/// ``VersionedFormat/currentVersion``; files written before the app adopted versioning are
/// `<name>-legacy<anything>.json`. Recorded shapes (`.shape.json`) are not fixtures.
public enum FormatFixtures {
  /// The folder named `folder` beside the test file that calls this: the source folder, where
  /// record mode writes new shapes and fixtures so that version control sees them.
  ///
  /// Reading may use it too while the sources are on the machine that runs the tests (SwiftPM on
  /// a Mac or Linux, the iOS simulator). On a device, read through the test bundle instead:
  /// declare the folder as a resource (`resources: [.copy("Fixtures")]`) and use
  /// ``bundledFolder(_:in:)``. Both name the same files.
  public static func sourceFolder(_ folder: String = "Fixtures", filePath: StaticString = #filePath)
    -> URL
  {
    URL(filePath: "\(filePath)").deletingLastPathComponent().appending(path: folder)
  }

  /// The copy of the folder `folder` in `bundle` (a test target's `Bundle.module`), or `nil` when
  /// the target does not declare it as a resource.
  public static func bundledFolder(_ folder: String = "Fixtures", in bundle: Bundle) -> URL? {
    bundle.resourceURL.map { $0.appending(path: folder) }.flatMap { url in
      var isFolder: ObjCBool = false
      return FileManager.default.fileExists(atPath: url.path, isDirectory: &isFolder)
        && isFolder.boolValue ? url : nil
    }
  }

  /// The fixtures of `name` in `directory`: its versions' and its legacy files, sorted.
  public static func fixtureNames(name: String, in directory: URL) -> [String] {
    let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
    return names.filter { file in
      guard file.hasSuffix(".json"), !file.hasSuffix(".shape.json") else { return false }
      return version(ofFixtureNamed: file, name: name) != nil
        || file.hasPrefix("\(name)-legacy")
    }.sorted()
  }

  /// Every way the fixtures of `name` in `directory` fail the format; empty when every version
  /// from the chain's oldest to the current one has a fixture and every fixture reads.
  ///
  /// A fixture reads when `Format` decodes it through its current migration chain and the
  /// version its envelope states is the one its name says (so a fixture recorded under the
  /// wrong name cannot stand in for another version).
  public static func problems<Format: VersionedFormat>(
    _ format: Format.Type, name: String, in directory: URL
  ) -> [String] {
    let names = fixtureNames(name: name, in: directory)
    var problems: [String] = []
    let oldest = Format.migrations.oldestVersion
    let current = Format.currentVersion
    let versions = Set(names.compactMap { version(ofFixtureNamed: $0, name: name) })
    for version in oldest...current where !versions.contains(version) {
      problems.append(
        "No golden fixture for version \(version) of \(name): \(name)-v\(version).json is "
          + "missing from \(directory.path). Every version the app ever wrote needs one. For the "
          + "current version, record it with \(FormatRecordMode.command); for an older one, "
          + "restore it from version control or write it as that version of the app did.")
    }
    for file in names {
      let data: Data
      do {
        data = try Data(contentsOf: directory.appending(path: file))
      } catch {
        problems.append("Cannot read the fixture \(file): \(error)")
        continue
      }
      if let named = version(ofFixtureNamed: file, name: name),
        let stated = Format.version(of: data).version, stated != named
      {
        problems.append(
          "The fixture \(file) is named version \(named) but its envelope says \(stated).")
      }
      do {
        _ = try Format.decode(data)
      } catch {
        problems.append(
          "The golden fixture \(file) no longer reads: \(error)\n\nIt stands for files users "
            + "already have: fix the code or add a migration; never edit the fixture.")
      }
    }
    if names.isEmpty {
      problems.append("No fixtures of \(name) in \(directory.path).")
    }
    return problems
  }

  /// The version in a fixture's name (`drafts-v3.json` is 3), or `nil`.
  static func version(ofFixtureNamed file: String, name: String) -> Int? {
    let prefix = "\(name)-v"
    guard file.hasPrefix(prefix), file.hasSuffix(".json") else { return nil }
    return Int(file.dropFirst(prefix.count).dropLast(".json".count))
  }
}
