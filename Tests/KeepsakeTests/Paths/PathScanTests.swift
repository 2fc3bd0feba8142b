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
