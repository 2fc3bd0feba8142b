import Foundation
import Keepsake

// What the app of a simulated process asks of a file's persistence, answered by callback.

extension Simulation {
  func request(
    _ request: SimulatedRequest, _ slot: Int, _ file: Int
  ) -> SimulatedProcess? {
    guard let process = app(slot, file), let key = process.keys[file] else { return nil }
    let name = process.name
    // NB: what the app asks for may write the file at once, also into a replacement's gap: the
    // app asked (see `SimulationFact.gapFilled`).
    process.asked[file] += 1
    switch request {
    case .save, .flush, .load, .replace:
      let inside: Bool
      if case .open? = process.transactions[file] { inside = true } else { inside = false }
      let items = process.ownItemsInMemory(file)
      let driven: DrivenRequest =
        switch request {
        case .save: .save
        case .flush: .flush
        case .load: .load
        default: .replaceUnreadableData
        }
      key.drive(driven, inside) { [self] outcome in
        process.asked[file] -= 1
        guard process.isAlive, case .success = outcome, !inside, request != .load else { return }
        acknowledge(file, name, request, items)
      }
    case .update, .failingUpdate:
      if case .open? = process.transactions[file] { return nil }
      let item = nextName(slot, "u")
      let items = process.ownItemsInMemory(file)
      let throwing = request == .failingUpdate
      key.update(
        item, throwing,
        { [self] in
          if throwing {
            facts.append(.forbidden(item: item, .bodyThrew))
          } else if !process.added[file].contains(item) {
            process.added[file].append(item)
            facts.append(.added(item: item, file: file, by: name, origin: .mutation))
          }
        },
        { [self] outcome in
          process.asked[file] -= 1
          guard process.isAlive, case .success = outcome, !throwing else { return }
          acknowledge(file, name, request, items + [item])
        })
    case .begin:
      guard process.transactions[file] == nil else {
        process.asked[file] -= 1
        return nil
      }
      process.transactions[file] = .beginning
      key.drive(.begin, false) { [self] outcome in
        process.asked[file] -= 1
        guard process.isAlive, process.transactions[file] == .beginning else { return }
        switch outcome {
        case .success:
          let base = nextName(slot, "t")
          process.transactions[file] = .open(pair: [base + "a", base + "b"], halves: 0)
        case .failure:
          process.transactions[file] = nil
        }
      }
    case .commit:
      guard case .open(let pair, let halves)? = process.transactions[file] else {
        process.asked[file] -= 1
        return nil
      }
      // The body returns: whatever it had left to add, it adds first.
      for half in halves..<2 { addHalf(of: pair, half, to: process, file, key) }
      let items = process.ownItemsInMemory(file) + pair
      process.transactions[file] = .ending(pair: pair, commit: true)
      key.drive(.commit, false) { [self] outcome in
        process.asked[file] -= 1
        guard process.isAlive else { return }
        process.transactions[file] = nil
        if case .success = outcome {
          figures.committed += 1
          acknowledge(file, name, request, items)
        }
      }
    case .rollback:
      guard case .open(let pair, _)? = process.transactions[file] else {
        process.asked[file] -= 1
        return nil
      }
      for item in pair { facts.append(.forbidden(item: item, .rolledBack)) }
      process.transactions[file] = .ending(pair: pair, commit: false)
      figures.rolledBack += 1
      key.drive(.rollback, false) { _ in
        process.asked[file] -= 1
        guard process.isAlive else { return }
        process.transactions[file] = nil
      }
    }
    return process
  }
}
