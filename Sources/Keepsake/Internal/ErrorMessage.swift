/// The text of Keepsake's errors that is shared between them: decoding errors and coding paths.
///
/// NB: an error's `description` is what an app logs and shows, so it names types, paths and
/// operations but never the user's values; the decoder's own `debugDescription` (which may quote
/// a value, as in "invalid UUID string 'Alice'") is kept for `debugDescription` and for the
/// payloads of the error's cases. The same rule as GRDB's statement arguments.
enum ErrorMessage {
  /// A decoding error in a sentence fragment, without the decoder's detail.
  ///
  /// For example `the key is missing at settings.theme`: what was expected and where. Any other
  /// error is given by its description.
  ///
  /// `includingDetail` adds the decoder's detail in parentheses: only for data decoded by
  /// Keepsake's own types and codec, whose messages never quote a value.
  static func reason(_ error: any Error, includingDetail: Bool = false) -> String {
    guard let decodingError = error as? DecodingError else {
      let text = String(describing: error)
      return text.hasSuffix(".") ? String(text.dropLast()) : text
    }
    let failure = DecodingFailure(decodingError, lookup: { _ in nil })
    let reason = "\(failure.problem) at \(JSONPathComponent.render(failure.path))"
    guard includingDetail, let detail = detail(error) else { return reason }
    return "\(reason) (\(detail.hasSuffix(".") ? String(detail.dropLast()) : detail))"
  }

  /// The decoder's own account of `error`, when it is a decoding error that has one.
  ///
  /// It may quote the value that failed, so it belongs in a `debugDescription`, never in a
  /// `description`.
  static func detail(_ error: any Error) -> String? {
    guard let decodingError = error as? DecodingError else { return nil }
    let context: DecodingError.Context? =
      switch decodingError {
      case .typeMismatch(_, let context), .valueNotFound(_, let context),
        .keyNotFound(_, let context), .dataCorrupted(let context):
        context
      @unknown default: nil
      }
    guard let text = context?.debugDescription, !text.isEmpty else { return nil }
    return text
  }

  /// Whether `error`'s description already says the stored data was left untouched, so an
  /// error that wraps it does not say it a second time.
  static func saysDataIsUntouched(_ error: any Error) -> Bool {
    (error as? any DescribesUntouchedData)?.saysDataIsUntouched ?? false
  }

  /// Whether `error` is about the path, not the data, so advice about the data does not apply.
  static func isAboutThePath(_ error: any Error) -> Bool {
    (error as? any DescribesUntouchedData)?.isAboutThePath ?? false
  }
}

/// An error whose description may itself say that the stored data was left untouched.
protocol DescribesUntouchedData {
  /// Whether the error's `description` says the data was left untouched.
  var saysDataIsUntouched: Bool { get }
  /// Whether the error is about the path rather than the data (a name too long): then restoring
  /// the file or starting over cannot help, and the error says what can.
  var isAboutThePath: Bool { get }
}

extension DescribesUntouchedData {
  var isAboutThePath: Bool { false }
}
