import Foundation
import Testing

@testable import Keepsake

/// The scans of a path's bytes that every file key's creation makes: the same answers as the
/// string operations they replace, for every spelling.
@Suite("Path scans")
struct PathScanTests {
  @Test(
    "The last slash, the slashes and a byte are found as the string's own search finds them",
    arguments: StandardPathTests.spellings + ["", "no-slash", "a/", "/é/ü"])
  func scansAgreeWithTheString(_ path: String) {
    let bytes = Array(path.utf8)
    #expect(PathScan.lastSlash(in: path) == bytes.lastIndex(of: UInt8(ascii: "/")))
    #expect(PathScan.slashCount(in: path) == bytes.count { $0 == UInt8(ascii: "/") })
    #expect(PathScan.contains(UInt8(ascii: "%"), in: path) == bytes.contains(UInt8(ascii: "%")))
    if let slash = PathScan.lastSlash(in: path) {
      #expect(
        PathScan.part(of: path, (slash + 1)..<bytes.count)
          == String(
            path.split(
              separator: "/", omittingEmptySubsequences: false
            ).last ?? ""))
    }
  }

  @Test("The first component longer than a limit is found, the last one too")
  func longComponents() {
    let long = String(repeating: "n", count: 12)
    #expect(PathScan.firstComponent(of: "/a/b/c.json", longerThan: 10) == nil)
    let middle = "/a/\(long)/c.json"
    let found = PathScan.firstComponent(of: middle, longerThan: 10)
    #expect(found.map { PathScan.part(of: middle, $0) } == long)
    let last = "/a/b/\(long)"
    #expect(
      PathScan.firstComponent(of: last, longerThan: 10).map { PathScan.part(of: last, $0) } == long)
    #expect(PathScan.firstComponent(of: "/a/\(long)/\(long)x", longerThan: 10) == 3..<15)
    // A name of exactly the limit is allowed; one byte more is not.
    #expect(PathScan.firstComponent(of: "/\(long)", longerThan: 12) == nil)
    #expect(PathScan.firstComponent(of: "/\(long)", longerThan: 11) == 1..<13)
    #expect(PathScan.firstComponent(of: "/\(long)/a", longerThan: 11) == 1..<13)
  }
}

/// The limits a key's path is checked against when the key is made, at their edges.
@Suite("Path limits")
struct PathLimitTests {
  /// An absolute path of exactly `length` bytes, in names of 100 bytes.
  static func path(_ length: Int) -> String {
    var path = ""
    while path.utf8.count + 101 <= length { path += "/" + String(repeating: "p", count: 100) }
    let rest = length - path.utf8.count
    return rest > 1 ? path + "/" + String(repeating: "q", count: rest - 1) : path + "/q"
  }

  @Test("A path of the longest length is within the limits; one byte more is refused")
  func pathLength() {
    let limit = FileSystemLimits.maximumPathLength
    #expect(Self.path(limit).utf8.count == limit)
    #expect(FileSystemLimits.excess(of: Self.path(limit)) == nil)
    #expect(
      FileSystemLimits.excess(of: Self.path(limit + 1))
        == .pathTooLong(length: limit + 1, limit: limit))
  }

  @Test("A name of the longest length is within the limits; one byte more is refused")
  func nameLength() {
    let limit = FileSystemLimits.maximumNameLength
    let longest = String(repeating: "n", count: limit)
    #expect(FileSystemLimits.excess(of: "/tmp/\(longest)/a.json") == nil)
    #expect(
      FileSystemLimits.excess(of: "/tmp/\(longest)x/a.json")
        == .nameTooLong(name: longest + "x", length: limit + 1, limit: limit))
  }
}
