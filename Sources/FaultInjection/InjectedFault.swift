import Foundation

/// A ready-made error for the failures that networked code has to survive.
///
/// Each case stands for a category that practitioners test retry, offline and
/// error-presentation paths against. The cases are plain values, independent of
/// `URLError`, so they behave the same on every platform and compare with `==`.
///
/// ```swift
/// faults[.fetchRecentlyPlayed] = [.fail(.server(status: 503))]
/// ```
public enum InjectedFault: Error, Hashable, Sendable, CustomStringConvertible, LocalizedError {
  /// The request took too long and was abandoned.
  case timeout
  /// The device has no network connection.
  case notConnected
  /// The connection dropped while the request was in flight.
  case connectionLost
  /// The response ended before all of its data arrived.
  case truncatedResponse
  /// The server answered with an error status, such as 500 or 503.
  case server(status: Int)
  /// The server refused the request because of too many requests.
  ///
  /// `retryAfter` carries the server's `Retry-After` hint when it gave one.
  case rateLimited(retryAfter: Duration?)

  /// A sentence that says what went wrong, as a person would read it in a log.
  public var description: String {
    switch self {
    case .timeout:
      return "The request timed out."
    case .notConnected:
      return "The device is not connected to the internet."
    case .connectionLost:
      return "The network connection was lost."
    case .truncatedResponse:
      return "The response ended before all of its data arrived."
    case .server(let status):
      return "The server responded with status \(status)."
    case .rateLimited(let retryAfter?):
      return "Too many requests; retry after \(retryAfter)."
    case .rateLimited(nil):
      return "Too many requests."
    }
  }

  /// The same text as ``description``, so `localizedDescription` reads well too.
  public var errorDescription: String? { description }

  /// Whether a well-behaved client would try the same request again later.
  ///
  /// Client errors (4xx other than 429) are not worth retrying; transport
  /// failures, 5xx responses and rate limiting are.
  public var isRetryable: Bool {
    switch self {
    case .timeout, .notConnected, .connectionLost, .truncatedResponse, .rateLimited:
      return true
    case .server(let status):
      return status >= 500
    }
  }
}
