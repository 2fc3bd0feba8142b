import Foundation
import KeepsakeStress
import Testing

@testable import Keepsake

@Suite("Lock timing")
struct LockTimingTests {
  /// A fresh folder on the real disk, removed by the caller.
  private func folder() throws -> URL {
    let url = FileManager.default.temporaryDirectory
      .appendingPathComponent("keepsake-lock-timing-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    return url
  }

  @Test("A hold is timed from the lock to its release, its write from the temporary file on")
  func holdsAndWritesAreTimed() throws {
    let folder = try folder()
    defer { try? FileManager.default.removeItem(at: folder) }
    let url = folder.appendingPathComponent("items.json")
    let timed = TimedSystemCalls()
    let fileSystem = LocalFileSystem(calls: timed.calls)

    // Outside a hold, nothing counts.
    try fileSystem.writeAtomically(Data("[]".utf8), to: url)
    #expect(timed.timing() == LockTiming())

    let lock = try fileSystem.lockExclusively(url, timeout: .seconds(5))
    try fileSystem.writeAtomically(Data("[1]".utf8), to: url)
    lock.release()
    let first = timed.timing()
    #expect(first.holds == 1)
    #expect(first.writes == 1)
    #expect(first.protocolNanoseconds > 0)
    #expect(first.heldNanoseconds >= first.protocolNanoseconds)

    // A hold that writes nothing is a hold, not a write.
    try fileSystem.lockExclusively(url, timeout: .seconds(5)).release()
    #expect(timed.timing().holds == 2)
    #expect(timed.timing().writes == 1)
    #expect(timed.timing().heldNanoseconds > first.heldNanoseconds)
    #expect(timed.timing().protocolNanoseconds == first.protocolNanoseconds)

    // The processor time is the process's own, from the reading it is given.
    let start = LockTiming.processorTime()
    var spin = 0
    while LockTiming.processorTime() == start { spin &+= 1 }
    #expect(timed.timing(processorSince: start).processorNanoseconds > 0)
    #expect(timed.timing().processorNanoseconds == 0)
  }

  @Test("A lock another holder keeps is not a hold")
  func refusedLockIsNotAHold() throws {
    let folder = try folder()
    defer { try? FileManager.default.removeItem(at: folder) }
    let url = folder.appendingPathComponent("items.json")
    let holder = try LocalFileSystem().lockExclusively(url, timeout: .seconds(5))
    defer { holder.release() }
    let timed = TimedSystemCalls()
    #expect(throws: (any Error).self) {
      try LocalFileSystem(calls: timed.calls).lockExclusively(url, timeout: .zero)
    }
    #expect(timed.timing() == LockTiming())
  }

  @Test("A child's timing line reads back, and other lines are not one")
  func linesRoundTrip() {
    var timing = LockTiming()
    timing.holds = 200
    timing.heldNanoseconds = 310_000_000
    timing.writes = 199
    timing.protocolNanoseconds = 150_000_000
    timing.processorNanoseconds = 400_000_000
    #expect(LockTiming(line: timing.line) == timing)
    #expect(timing.processorSecondsPerHold == 0.002)
    #expect(timing.secondsPerHold == 0.00155)
    #expect(timing.protocolSecondsPerWrite == 0.15 / 199)
    #expect((timing + timing).holds == 400)
    for line in [
      "added 3.117", "timing 1 2 3 4", "timing 1 2 3 4 x", "timing -1 2 3 4 5",
      "done 200 0 0",
    ] {
      #expect(LockTiming(line: line) == nil, "\(line)")
    }
    #expect(LockTiming().secondsPerHold == 0)
  }
}
