import Foundation
import Keepsake

extension SharedKey where Self == FileStorageKey<[Draft]> {
  /// The drafts inbox at its usual place (see ``DraftsLocation``), in ``DraftsFormat``.
  public static var drafts: Self {
    .drafts(at: DraftsLocation.url(environment: ProcessInfo.processInfo.environment))
  }

  /// The drafts inbox stored at `url`, in ``DraftsFormat``.
  public static func drafts(at url: URL) -> Self {
    .fileStorage(url, format: DraftsFormat.self)
  }
}
