import Foundation
import KeepsakeStress
import Testing

@Suite("Command line")
struct CommandLineTests {
  private func run(_ arguments: [String]) throws -> (
    lines: [String], ending: ChildProcess.Termination
  ) {
    let child = try ChildProcess(
      executable: stressExecutable, arguments: arguments, silencingErrors: true)
    let lines = child.readRemainingLines()
    return (lines, child.wait())
  }

  @Test("A campaign prints its figures and the final tally, and exits 0 when it passed")
  func faultsCampaign() throws {
    let (lines, ending) = try run(["--campaign", "faults", "--seed", "9"])
    #expect(ending.exitCode == 0)
    #expect(lines.first == "keepsake-stress, seed 9 (repeat with --seed 9)")
    #expect(lines.last == "1 passed, 0 failed")
  }

  @Test(
    "Bad arguments are a usage error (exit 2)",
    arguments: [["--kills", "many"], ["--campaign", "nope"], ["--bogus", "1"], ["--seed"]])
  func usageErrors(_ arguments: [String]) throws {
    let (lines, ending) = try run(arguments)
    #expect(ending.exitCode == 2)
    #expect(lines.isEmpty)
  }

  @Test("The reader mode reports a missing file")
  func readerOfMissingFile() throws {
    let (lines, ending) = try run(["reader", "/nonexistent-keepsake-stress/counter.json"])
    #expect(ending.exitCode == 0)
    #expect(lines == ["missing"])
  }
}
