#if canImport(Darwin)
  import Darwin
#elseif canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// Paths as the system has them: bytes, which are not always valid UTF-8.
///
/// Keepsake names files with `String`s, which hold only valid Unicode. A name made of other bytes
/// (`caf\xE9.json`, written by a Latin-1 system) decoded the usual way turns each bad byte into
/// U+FFFD, a different name, so a program that went on with it would open a look-alike file (or
/// create one beside the original). Everything that takes a name from the system (a command
/// line, a link's target, a folder listing) checks it here first, and refuses what it cannot
/// name exactly.
package enum PathBytes {
  /// The bytes as a string, or `nil` when they are not valid UTF-8.
  static func string(_ bytes: some Collection<UInt8>) -> String? {
    String(validating: bytes, as: UTF8.self)
  }

  /// The C string at `pointer` as a string, or `nil` when it is not valid UTF-8.
  static func string(cString pointer: UnsafePointer<CChar>) -> String? {
    String(validatingCString: pointer)
  }

  /// The bytes of the C string at `pointer`, without its terminator.
  static func bytes(cString pointer: UnsafePointer<CChar>) -> [UInt8] {
    let count = strlen(pointer)
    return pointer.withMemoryRebound(to: UInt8.self, capacity: count) { bytes in
      Array(UnsafeBufferPointer(start: bytes, count: count))
    }
  }

  /// The bytes for a message: valid UTF-8 as it is, every other byte as `\xNN`, and control
  /// characters escaped too, so the text shows exactly which bytes the name has.
  package static func escaped(_ bytes: some Collection<UInt8>) -> String {
    let bytes = Array(bytes)
    var text = ""
    var index = 0
    while index < bytes.count {
      // The one scalar a valid sequence of 1 to 4 bytes starting here encodes, if any.
      let found = (1...min(4, bytes.count - index)).lazy.compactMap { length in
        String(validating: bytes[index..<index + length], as: UTF8.self)
          .flatMap { $0.unicodeScalars.count == 1 ? ($0.unicodeScalars.first, length) : nil }
      }.first
      guard let (scalar, length) = found, let scalar else {
        text += "\\x" + hex(bytes[index])
        index += 1
        continue
      }
      if scalar.properties.generalCategory == .control {
        for byte in bytes[index..<index + length] { text += "\\x" + hex(byte) }
      } else {
        text.unicodeScalars.append(scalar)
      }
      index += length
    }
    return text
  }

  private static func hex(_ byte: UInt8) -> String {
    let digits = String(byte, radix: 16, uppercase: true)
    return digits.count == 1 ? "0" + digits : digits
  }
}
