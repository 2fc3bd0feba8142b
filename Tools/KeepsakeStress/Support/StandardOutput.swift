import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Writes whole lines to standard output at once, unbuffered.
///
/// NB: a child process reports acknowledged saves to its parent this way. `print` buffers when
/// standard output is a pipe, so a `SIGKILL` would lose lines already "reported"; one `write(2)`
/// of a short line to a pipe is atomic, so the parent never sees half a line.
public enum StandardOutput {
  /// Writes `line` and a newline.
  public static func write(_ line: String) {
    var bytes = Array((line + "\n").utf8)
    var offset = 0
    while offset < bytes.count {
      let count = bytes.withUnsafeMutableBytes { buffer in
        #if canImport(Glibc)
          Glibc.write(1, buffer.baseAddress.map { $0 + offset }, buffer.count - offset)
        #else
          Darwin.write(1, buffer.baseAddress.map { $0 + offset }, buffer.count - offset)
        #endif
      }
      if count < 0 && errno == EINTR { continue }
      if count <= 0 { return }
      offset += count
    }
  }
}
