import Foundation
import Testing

@testable import Keepsake

/// A second `UserDefaults` object for a suite already in use is reported, as swift-sharing
/// reports it: two objects of one suite do not see each other's changes, and keys named by them
/// are different keys.
@Suite("UserDefaults objects of one suite")
struct UserDefaultsSuiteTests {
  static func suite() -> String { "keepsake.tests.suite.\(UUID().uuidString)" }

  @Test("A second object for a suite in use is reported once, naming the suite and the key")
  func secondObjectIsReported() throws {
    let suite = Self.suite()
    let first = try #require(UserDefaults(suiteName: suite))
    let second = try #require(UserDefaults(suiteName: suite))
    let (_, warnings) = RuntimeWarning.collecting {
      _ = AppStorageKey<Int>.appStorage("count", store: first)
      _ = AppStorageKey<Int>.appStorage("count", store: second)
      _ = AppStorageKey<Int>.appStorage("other", store: second)
    }
    #expect(warnings.count == 1)
    #expect(warnings.first?.contains(String(reflecting: suite)) == true)
    #expect(warnings.first?.contains(#"appStorage("count", store:)"#) == true)
  }

  @Test("The report fails the running test, where KeepsakeTesting is linked")
  func reportedToTheRunningTest() throws {
    let suite = Self.suite()
    let first = try #require(UserDefaults(suiteName: suite))
    let second = try #require(UserDefaults(suiteName: suite))
    _ = AppStorageKey<Int>.appStorage("count", store: first)
    withKnownIssue {
      _ = AppStorageKey<Int>.appStorage("count", store: second)
    } matching: { issue in
      String(describing: issue).contains("was given a second UserDefaults object for the suite")
    }
  }

  @Test("One object per suite is not reported, however many keys use it")
  func oneObjectPerSuite() throws {
    let group = try #require(UserDefaults(suiteName: Self.suite()))
    let other = try #require(UserDefaults(suiteName: Self.suite()))
    let (_, warnings) = RuntimeWarning.collecting {
      _ = AppStorageKey<Int>.appStorage("count", store: group)
      _ = AppStorageKey<Int>.appStorage("count", store: group)
      _ = AppStorageKey<String>.appStorage("name", store: group)
      _ = AppStorageKey<Int>.appStorage("count", store: other)
    }
    #expect(warnings.isEmpty)
  }

  @Test("A key given a store describes it by its suite")
  func description() throws {
    let suite = Self.suite()
    let group = try #require(UserDefaults(suiteName: suite))
    #expect(
      AppStorageKey<Int>.appStorage("count", store: group).description
        == #".appStorage("count", store: UserDefaults(suiteName: "\#(suite)"))"#)
  }
}
