import Dispatch
import Foundation
@_spi(Testing) import Keepsake
import Observation
import Synchronization
import Testing

/// What Observation promises a view that shows a shared value, whatever the hot path of
/// `withLock` and `wrappedValue` skips: every tracked read is told of the next change, from any
/// thread, again and again, with observers coming and going.
@Suite("Observation of shared values")
struct ObservationTests {
  @Test("Tracking a read fires once, for the next change only")
  func firesAfterARead() {
    @Shared(.inMemory("counter")) var counter = 0
    let fired = Mutex(0)
    withObservationTracking {
      _ = counter
    } onChange: {
      fired.withLock { $0 += 1 }
    }
    $counter.withLock { $0 += 1 }
    $counter.withLock { $0 += 1 }
    #expect(fired.withLock { $0 } == 1, "one-shot: the second change finds no observer")
    #expect(counter == 2)
  }

  @Test("onChange sees the old value: willSet comes before the store")
  func willSetBeforeTheStore() {
    @Shared(.inMemory("ordered")) var value = 1
    let shared = $value
    let during = Mutex<Int?>(nil)
    withObservationTracking {
      _ = value
    } onChange: {
      // NB: reading from inside onChange would register a new access on this thread; the lock
      // of the value is not held here, so the read is safe.
      during.withLock { $0 = shared.wrappedValue }
    }
    $value.withLock { $0 = 2 }
    #expect(during.withLock { $0 } == 1)
    #expect(value == 2)
  }

  @Test("A change made on another thread fires a tracking made on this one")
  func firesAcrossThreads() {
    @Shared(.inMemory("cross-thread")) var value = 0
    let shared = $value
    let fired = Mutex(0)
    withObservationTracking {
      _ = value
    } onChange: {
      fired.withLock { $0 += 1 }
    }
    let done = DispatchSemaphore(value: 0)
    let thread = Thread {
      shared.withLock { $0 = 7 }
      done.signal()
    }
    thread.start()
    #expect(done.wait(timeout: .now() + 10) == .success)
    #expect(fired.withLock { $0 } == 1)
    #expect(value == 7)
  }

  @Test("Tracking again after each onChange, as SwiftUI does, fires for every change")
  func repeatedTracking() {
    @Shared(.inMemory("rendered")) var value = 0
    let fired = Mutex(0)
    for round in 1...200 {
      withObservationTracking {
        _ = value
      } onChange: {
        fired.withLock { $0 += 1 }
      }
      $value.withLock { $0 += 1 }
      #expect(fired.withLock { $0 } == round)
    }
  }

  @Test("Observers that come back after many unobserved changes are told of the next one")
  func observersComeAndGo() {
    @Shared(.inMemory("come-and-go")) var value = [Int]()
    let fired = Mutex(0)
    withObservationTracking {
      _ = value
    } onChange: {
      fired.withLock { $0 += 1 }
    }
    // The first change fires the observer and removes it; the rest have none.
    for number in 0..<1_000 { $value.withLock { $0.append(number) } }
    #expect(fired.withLock { $0 } == 1)
    withObservationTracking {
      _ = value
    } onChange: {
      fired.withLock { $0 += 1 }
    }
    $value.withLock { $0.append(1_000) }
    #expect(fired.withLock { $0 } == 2)
    #expect(value.count == 1_001)
  }

  @Test("Two trackings of one value are both told, and each only once")
  func twoObservers() {
    @Shared(.inMemory("two")) var value = 0
    let fired = Mutex((first: 0, second: 0))
    withObservationTracking {
      _ = value
    } onChange: {
      fired.withLock { $0.first += 1 }
    }
    withObservationTracking {
      _ = value
    } onChange: {
      fired.withLock { $0.second += 1 }
    }
    $value.withLock { $0 += 1 }
    $value.withLock { $0 += 1 }
    #expect(fired.withLock { $0.first == 1 && $0.second == 1 })
  }

  @Test("A tracking of another Shared of the same key is told of a change through either")
  func sameKeyTwoShareds() {
    @Shared(.inMemory("one-reference")) var first = 0
    @Shared(.inMemory("one-reference")) var second = 0
    let fired = Mutex(0)
    withObservationTracking {
      _ = first
    } onChange: {
      fired.withLock { $0 += 1 }
    }
    $second.withLock { $0 = 3 }
    #expect(fired.withLock { $0 } == 1)
  }

  @Test("A change of a file key fires its tracking and is still saved")
  func fileKeyObservedAndSaved() async throws {
    let url = URL(fileURLWithPath: "/observed/value.json")
    @Shared(.fileStorage(url)) var value = 1
    let disk = try #require($value.storageContext.fileSystem as? InMemoryFileSystem)
    let fired = Mutex(0)
    withObservationTracking {
      _ = value
    } onChange: {
      fired.withLock { $0 += 1 }
    }
    $value.withLock { $0 = 5 }
    #expect(fired.withLock { $0 } == 1)
    try await $value.flush()
    #expect(try disk.contents(of: url) == Data("5".utf8))
  }

  @Test("Observers of the value and of each part of the status are told only of their own part")
  func valueAndStatusObservedApart() async throws {
    let url = URL(fileURLWithPath: "/observed/parts.json")
    @Shared(.fileStorage(url)) var value = 1
    let disk = try #require($value.storageContext.fileSystem as? InMemoryFileSystem)
    let failsRenames = Atomic(false)
    disk.faultHandler = { operation, _ in
      operation == .rename && failsRenames.load(ordering: .acquiring)
        ? .fail(.ioError) : nil
    }
    let shared = $value
    let parts: [(name: String, read: @Sendable () -> Void)] = [
      ("value", { _ = shared.wrappedValue }),
      ("loadError", { _ = shared.loadError }),
      ("saveError", { _ = shared.saveError }),
      ("lastConflict", { _ = shared.lastConflict }),
      ("isLoading", { _ = shared.isLoading }),
    ]
    let fired = Mutex<[String: Int]>([:])
    func track(_ names: Set<String>) {
      for part in parts where names.contains(part.name) {
        withObservationTracking(part.read) { fired.withLock { $0[part.name, default: 0] += 1 } }
      }
    }

    track(Set(parts.map(\.name)))
    $value.withLock { $0 = 2 }
    try await $value.save()
    #expect(fired.withLock { $0 } == ["value": 1], "a change and a save that succeeds")

    // NB: the value's observer is tracked again; the status observers are still waiting.
    track(["value"])
    failsRenames.store(true, ordering: .releasing)
    $value.withLock { $0 = 3 }
    await #expect(throws: SharedSaveError.self) { try await $value.save() }
    #expect(fired.withLock { $0 } == ["value": 2, "saveError": 1], "a save that fails")
    #expect($value.saveError != nil)
  }

  @Test(
    "Trackings made on one thread while another keeps changing the value are never left stale"
  )
  func noChangeLostWhileObserversComeAndGo() {
    @Shared(.inMemory("contended")) var value = 0
    let shared = $value
    let stop = Atomic<Bool>(false)
    let mutator = DispatchSemaphore(value: 0)
    let thread = Thread {
      while !stop.load(ordering: .acquiring) { shared.withLock { $0 += 1 } }
      mutator.signal()
    }
    thread.start()
    // NB: each round's tracking is installed after its read, while changes keep coming from the
    // other thread; as with any `@Observable`, a change between the read and the installation is
    // not reported, but a later one must be. A hot path that stopped notifying once it had
    // notified would leave a round waiting here for ever.
    // The race is narrow (microseconds per round), so many rounds; the first stale one ends it.
    var stale = 0
    for _ in 0..<3_000 {
      let changed = DispatchSemaphore(value: 0)
      withObservationTracking {
        _ = shared.wrappedValue
      } onChange: {
        changed.signal()
      }
      if changed.wait(timeout: .now() + 5) == .timedOut {
        stale += 1
        break
      }
    }
    stop.store(true, ordering: .releasing)
    #expect(mutator.wait(timeout: .now() + 10) == .success)
    #expect(stale == 0)
  }

  @Test("The values of an Observations sequence follow the changes")
  @available(macOS 26, iOS 26, tvOS 26, watchOS 26, visionOS 26, *)
  func observationsSequence() async throws {
    @Shared(.inMemory("sequence")) var value = 0
    let shared = $value
    let values = Observations { shared.wrappedValue }
    var iterator = values.makeAsyncIterator()
    #expect(await iterator.next() == 0)
    $value.withLock { $0 = 1 }
    #expect(await iterator.next() == 1)
    $value.withLock { $0 = 2 }
    #expect(await iterator.next() == 2)
  }
}
