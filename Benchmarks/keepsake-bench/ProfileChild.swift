import DraftsFeature
import Foundation
import Keepsake
import KeepsakeStress
import Synchronization

/// `--profile SCENARIO COUNT`: Keepsake's side of a CPU-bound scenario, `COUNT` times, on the
/// main thread and without the concurrency runtime, for instruction counts under `valgrind
/// --tool=callgrind` (which does not survive the whole benchmark's run here).
///
/// Run it at two counts: the difference of the two totals over the difference of the counts is
/// the instructions of one operation, without the process's start.
enum ProfileChild {
  static let scenarios = [
    "in-memory-mutation", "projected-mutation", "inline-projection", "in-memory-append",
    "observed-increment", "observed-read", "in-memory-keys", "observed-append",
    // The floors of the rows above that are not themselves a row here.
    "parent-mutation", "observed-append-floor", "append-floor", "observed-read-floor",
    // A `Shared` pointed at another key: the slow way of `withLock`.
    "rebound-append",
    // The codec on the processes row's file (800 items): what a transaction encodes, and what
    // each process decodes after another's commit.
    "encode-items", "decode-items",
    // The same file's first reading through a file key's memo, and a reading again after one
    // item was appended (what each other process pays after a commit).
    "decode-items-first", "decode-items-again",
    // The large-save row's encoding: 100,000 drafts written again after one draft changed.
    "encode-drafts-again",
  ]

  static func run(_ arguments: [String]) -> Int32 {
    guard arguments.count == 2, let count = Int(arguments[1]), scenarios.contains(arguments[0])
    else {
      FileHandle.standardError.write(
        Data("usage: --profile (\(scenarios.joined(separator: "|"))) COUNT\n".utf8))
      return 2
    }
    let context = Benchmark.context()
    var total = 0
    StorageContext.withValue(context) {
      switch arguments[0] {
      case "in-memory-mutation":
        let shared = Shared(.inMemory("counter"), default: 0)
        for _ in 0..<count { shared.withLock { $0 += 1 } }
        total = shared.wrappedValue
      case "projected-mutation":
        let settings = Shared(.inMemory("counters"), default: Benchmark.Counters())
        let opened = settings.opened
        for _ in 0..<count { opened.withLock { $0 += 1 } }
        total = settings.wrappedValue.opened
      case "inline-projection":
        let settings = Shared(.inMemory("counters"), default: Benchmark.Counters())
        for _ in 0..<count { settings.opened.withLock { $0 += 1 } }
        total = settings.wrappedValue.opened
      case "parent-mutation":
        let settings = Shared(.inMemory("counters"), default: Benchmark.Counters())
        for _ in 0..<count { settings.withLock { $0.opened += 1 } }
        total = settings.wrappedValue.opened
      case "in-memory-append":
        let draft = SampleDrafts.make(1, seed: 3)[0]
        let drafts = Shared(.inMemory("drafts"), default: [Draft]())
        for _ in 0..<count { drafts.withLock { $0.append(draft) } }
        total = drafts.wrappedValue.count
      case "observed-increment":
        let shared = Shared(.inMemory("observed"), default: 0)
        _ = shared.wrappedValue
        for _ in 0..<count { shared.withLock { $0 += 1 } }
        total = shared.wrappedValue
      case "observed-append":
        let draft = SampleDrafts.make(1, seed: 3)[0]
        let drafts = Shared(.inMemory("drafts"), default: [Draft]())
        _ = drafts.wrappedValue
        for _ in 0..<count { drafts.withLock { $0.append(draft) } }
        total = drafts.wrappedValue.count
      case "observed-append-floor":
        let draft = SampleDrafts.make(1, seed: 3)[0]
        let floor = ObservableFloor([Draft]())
        _ = floor.value
        for _ in 0..<count { floor.withLock { $0.append(draft) } }
        total = floor.value.count
      case "rebound-append":
        let draft = SampleDrafts.make(1, seed: 3)[0]
        var drafts = Shared(.inMemory("first"), default: [Draft]())
        drafts.projectedValue = Shared(.inMemory("drafts"), default: [Draft]())
        for _ in 0..<count { drafts.withLock { $0.append(draft) } }
        total = drafts.wrappedValue.count
      case "append-floor":
        let draft = SampleDrafts.make(1, seed: 3)[0]
        let drafts = Mutex([Draft]())
        for _ in 0..<count { drafts.withLock { $0.append(draft) } }
        total = drafts.withLock { $0.count }
      case "observed-read":
        let shared = Shared(.inMemory("observed"), default: 1)
        for _ in 0..<count { total &+= shared.wrappedValue }
      case "observed-read-floor":
        let floor = ObservableFloor(1)
        for _ in 0..<count { total &+= floor.value }
      case "encode-items":
        let items = (0..<800).map { ProcessItem(process: $0 % 8, index: $0 / 8) }
        for _ in 0..<count { total &+= (try? JSONCoding.encode(items).count) == nil ? 0 : 1 }
      case "decode-items-first", "decode-items-again":
        let items = (0..<801).map { ProcessItem(process: $0 % 8, index: $0 / 8) }
        let before = (try? JSONCoding.encode(Array(items.prefix(800)))) ?? Data()
        let after = (try? JSONCoding.encode(items)) ?? Data()
        let decoder = KeepsakeJSONDecoder()
        let memo = try? decoder.decodeArray(of: ProcessItem.self, from: before, reusing: nil).memo
        let again = arguments[0] == "decode-items-again"
        for _ in 0..<count {
          let read = try? decoder.decodeArray(
            of: ProcessItem.self, from: again ? after : before, reusing: again ? memo ?? nil : nil)
          total &+= read == nil ? 0 : 1
        }
      case "encode-drafts-again":
        var drafts = SampleDrafts.make(100_000)
        let encoder = KeepsakeJSONEncoder()
        var memo = encoder.encodeArray(drafts, reusing: nil)
        for edit in 0..<count {
          drafts[edit * 7_919 % drafts.count].body += " (edited)"
          memo = encoder.encodeArray(drafts, reusing: memo.take())
          total &+= memo == nil ? 0 : 1
        }
      case "decode-items":
        let items = (0..<800).map { ProcessItem(process: $0 % 8, index: $0 / 8) }
        let data = (try? JSONCoding.encode(items)) ?? Data()
        for _ in 0..<count {
          total &+= (try? JSONCoding.decode([ProcessItem].self, from: data)) == nil ? 0 : 1
        }
      default:
        // NB: as the bench row: names made before, every key kept alive while the others are
        // made (a key dropped at once also paid its reference's death and park).
        let names = (0..<count).map { "key-\($0)" }
        var kept: [Shared<Int>] = []
        kept.reserveCapacity(count)
        for name in names {
          let shared = Shared(.inMemory(name), default: 1)
          total &+= shared.wrappedValue
          kept.append(shared)
        }
        withExtendedLifetime(kept) {}
      }
    }
    print(total)
    return total == count ? 0 : 1
  }
}
