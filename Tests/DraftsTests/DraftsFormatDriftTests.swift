import DraftsFeature
import Foundation
import KeepsakeTesting
import Testing

@Suite("Drafts format drift")
struct DraftsFormatDriftTests {
  /// Every field set, every collection non-empty, so every key's shape is recorded.
  static let sample = [
    Draft(
      id: FixtureExpectations.id("8A4F1B63-2E5D-4C9A-B7E8-3F4A5B6C7D01"), body: "Sample",
      pinned: true,
      tags: ["tag"])
  ]

  @Test("The drafts format did not change shape without a version bump")
  func draftsFormatDidNotDrift() {
    // The source folder: record mode writes the new version's shape and fixture there.
    let fixtures = FormatFixtures.sourceFolder()
    FormatDrift.expectNoDrift(DraftsFormat.self, sample: Self.sample, name: "drafts", in: fixtures)
  }
}
