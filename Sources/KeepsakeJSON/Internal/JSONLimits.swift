/// The one nesting limit of Keepsake's JSON reading and writing.
enum JSONLimits {
  /// The deepest nesting read or written: 512 containers.
  ///
  /// Foundation's `JSONDecoder` and `JSONEncoder` allow as many. The next level is an error,
  /// never a deeper stack, so no hostile or corrupted file can exhaust the stack.
  static let maximumDepth = 512
}
