import Foundation
import Testing

@testable import Keepsake

/// A key's identity and the watcher's routes use paths read by hand, faster than Foundation's
/// `URL` operations: the results must be Foundation's, for every spelling of a path.
@Suite("Standard paths")
struct StandardPathTests {
  static let spellings = [
    "/", "/tmp", "/tmp/a.json", "/tmp/a/", "/tmp//a", "/tmp/./a", "/tmp/../a", "/tmp/a/.",
    "/tmp/a/..", "/./tmp", "//tmp", "/tmp/.a", "/tmp/..a", "/tmp/a..b", "/tmp/a.", "/tmp/...",
    "/tmp/%41", "/tmp/a b/c", "/tmp/é/ü.json", "/tmp/e\u{301}", "relative/x.json", "x.json",
    "/tmp/.keepsake-entries", "/a/b/c/d/e/f/g.json",
  ]

  @Test("A path's standard form is Foundation's standardized path", arguments: spellings)
  func standardPathIsFoundations(_ spelling: String) {
    let url = URL(fileURLWithPath: spelling)
    #expect(FolderPath.standardPath(of: url) == url.standardizedFileURL.path)
  }

  @Test(
    "A URL's path read the quicker way is its path", arguments: spellings + ["/tmp/a//", "/tmp/a/"])
  func pathIsFoundations(_ spelling: String) {
    for url in [
      URL(fileURLWithPath: spelling), URL(fileURLWithPath: spelling, isDirectory: true),
      URL(fileURLWithPath: spelling, isDirectory: false),
    ] {
      #expect(FolderPath.path(of: url) == url.path, "\(url)")
    }
  }

  @Test("A file URL's path read the quicker way is its path, percent escapes and host too")
  func pathOfFileURLStrings() throws {
    for string in [
      "file:///tmp/a%20b/c.json", "file:///tmp/%C3%A9.json", "file://localhost/tmp/x.json",
      "file:///tmp/a/", "file:///", "file:///tmp/%2F.json",
    ] {
      let url = try #require(URL(string: string))
      #expect(FolderPath.path(of: url) == url.path, "\(string)")
    }
  }

  @Test("Only absolute paths without empty, '.' or '..' components count as standard")
  func whatIsStandard() {
    for path in ["/", "/tmp", "/tmp/a.json", "/tmp/.a", "/tmp/..a", "/tmp/a..b", "/tmp/..."] {
      #expect(FolderPath.isStandard(path), "\(path)")
    }
    for path in ["", "tmp", "/tmp/", "//tmp", "/tmp/./a", "/tmp/../a", "/tmp/.", "/tmp/.."] {
      #expect(!FolderPath.isStandard(path), "\(path)")
    }
  }

  @Test("A path's components are split at its slashes, bytes and all", arguments: spellings)
  func componentsAreSlashSeparated(_ spelling: String) {
    #expect(
      FolderPath.components(spelling) == spelling.split(separator: "/").map(String.init))
  }

  @Test("A watch route finds its file and folder as the components do", arguments: spellings)
  func routeSplitsAsComponents(_ spelling: String) {
    var components = FolderPath.components(spelling)
    let name = components.popLast() ?? ""
    let route = WatchRoute(subscriber: WatchSubscriber({}), path: spelling)
    #expect(route.fileName == name)
    #expect(route.folderCount == components.count)
    #expect(route.folder == components)
    #expect(route.path(components.count) == FolderPath.path(components, count: components.count))
    #expect(route.path(0) == "/")
  }

  @Test("A standard path's parent is Foundation's", arguments: spellings)
  func parentIsFoundations(_ spelling: String) {
    let path = URL(fileURLWithPath: spelling).path
    guard FolderPath.isStandard(path), path != "/" else { return }
    #expect(
      FolderPath.parent(of: path)
        == URL(fileURLWithPath: path).deletingLastPathComponent().standardizedFileURL.path)
  }

  @Test("The lexical form of a path is unchanged by the byte check", arguments: spellings)
  func lexicalForm(_ spelling: String) {
    let path = URL(fileURLWithPath: spelling).path
    let expected =
      path.contains("//") || path.contains("/.") || path.hasSuffix("/")
      ? "/" + path.split(separator: "/").filter { $0 != "." }.joined(separator: "/") : path
    #expect(LocalFileSystem.lexical(path) == expected)
  }
}
