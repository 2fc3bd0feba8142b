import DraftsFeature
import Foundation
import Keepsake

extension ProgramsChild {
  /// How long a process waits, once the programs stopped, for the file to hold its changes.
  static let settling: Duration = .seconds(30)

  /// Waits (up to ``settling``) until `unsettled` finds nothing, and returns what it last found.
  ///
  /// Once the programs stop, a process's changes must reach the file without a save asked for:
  /// a coalesced save, or a write that met a program's and is tried again when the file
  /// changes. A change waiting for the app's next one, which may never come, is found here.
  static func settle(_ unsettled: () -> [String]) async -> [String] {
    let end = ContinuousClock.now + settling
    var found = unsettled()
    while !found.isEmpty && ContinuousClock.now < end {
      try? await Task.sleep(for: .milliseconds(50))
      found = unsettled()
    }
    return found
  }

  /// What differs between the drafts of `drafts` and the file's, and the errors it shows.
  ///
  /// A draft a program's blind write removed is gone from both once the key read the file: that
  /// one agrees (the campaign excuses what blind writes took).
  static func unsettled(_ drafts: Shared<[Draft]>, in url: URL) -> [String] {
    guard let data = try? Data(contentsOf: url),
      let stored = ProgramsDocument.drafts.entries(in: data)
    else { return ["the file, unreadable"] }
    let held = drafts.wrappedValue.map(\.body)
    var found = Set(held).symmetricDifference(stored).sorted().map {
      held.contains($0) ? "\($0) (held, not stored)" : "\($0) (stored, not held)"
    }
    if let error = drafts.loadError { found.append(Self.firstLine(error)) }
    if let error = drafts.saveError { found.append(Self.firstLine(error)) }
    return found
  }

  /// The first line of an error's description.
  static func firstLine(_ error: any Error) -> String {
    String("\(error)".prefix { $0 != "\n" })
  }
}
