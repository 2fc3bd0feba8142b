/// A `Shared` or `SharedReader` seen through `Any`: what a container of state (a `Store`) needs
/// to surface the load and save errors of the shared values it holds, without knowing their
/// value types.
package protocol SharedErrorSource {
  /// The key as an app writes it: `.fileStorage(…/drafts.json)`.
  var errorSourceDescription: String { get }
  /// Why the stored value could not be read, if it could not.
  var loadError: SharedLoadError? { get }
  /// Why the last save failed, if it did.
  var saveError: SharedSaveError? { get }
}

extension Shared: SharedErrorSource {
  package var errorSourceDescription: String { keyID.description }
}

extension SharedReader: SharedErrorSource {
  package var errorSourceDescription: String { keyID.description }
  package var saveError: SharedSaveError? { nil }
}
