import Foundation
import KeepsakeStress
import KeepsakeTesting
import Testing

@testable import Keepsake

/// Several processes writing different keys of one preferences suite at once lose none of them
/// (swift-corelibs `UserDefaults` can lose every key of one of three such processes).
@Suite("Preferences written by several processes")
struct PreferencesProcessesTests {
  @Test("Three processes writing 300 keys each keep all 900")
  func threeProcessesKeepEveryKey() throws {
    let folder = try TemporaryFolder()
    let url = folder.file("suite.json")
    let prefixes = ["a", "b", "c"]
    let children = try prefixes.map { prefix in
      try ChildProcess(
        executable: stressExecutable,
        arguments: ["preferences-writer", url.path, "--prefix", prefix, "--count", "300"],
        silencingErrors: true)
    }
    for child in children {
      _ = child.readRemainingLines()
      #expect(child.wait().exitCode == 0)
    }
    let suite = FilePreferences(url: url)
    for prefix in prefixes {
      let kept = (0..<300).filter { suite.value(forKey: "\(prefix)-\($0)") == .int($0) }.count
      #expect(kept == 300, "process \(prefix) kept \(kept) of 300 keys")
    }
    let names = try FileManager.default.contentsOfDirectory(atPath: folder.url.path)
    #expect(names.allSatisfy { !$0.contains(".keepsake-tmp-") }, "no temporary file left")
  }
}
