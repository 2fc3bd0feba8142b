import Foundation
import Keepsake

// The log of a replayed schedule: each event, the facts it led to, and the state after it.

extension Simulation {
  /// Logs `what` happened, the facts it led to, and the state after it.
  func logEvent(_ what: String) {
    // NB: the rule of time's checks are recorded after every event; they say nothing new.
    let new = facts.all[loggedFacts...].filter {
      if case .idle = $0 { return false }
      return true
    }.map(Self.brief)
    loggedFacts = facts.all.count
    let happened = new.isEmpty ? "" : " [" + new.joined(separator: "; ") + "]"
    log?.append("\(what)\(happened) => \(digest())")
  }

  /// A fact in a few words, for the log.
  private static func brief(_ fact: SimulationFact) -> String {
    func letter(_ file: Int) -> Character { SimulatedFile(rawValue: file)?.letter ?? "?" }
    switch fact {
    case .version(let file, let number, let bytes, let writer, let basedOn):
      let which = SimulatedFile(rawValue: file) ?? .items
      let fields = SimulatedDecoding.fields(in: bytes, of: which)
      let names = SimulatedDecoding.names(in: bytes, of: which)?.map { name in
        guard let members = fields[name] else { return name }
        let shown = members.sorted { $0.key < $1.key }.map { "\($0)=\($1)" }
        return name + "{" + shown.joined(separator: ",") + "}"
      }
      let shown =
        bytes == nil ? "no file" : names.map { "[\($0.joined(separator: ","))]" } ?? "unreadable"
      return
        "\(letter(file))v\(number) \(shown) by \(writer) from v\(basedOn.map(String.init) ?? "-")"
    case .copy(let file, _, _, let writer, let kind):
      return "\(kind) copy of \(letter(file)) by \(writer)"
    case .added(let item, let file, let by, _): return "\(by) adds \(item) to \(letter(file))"
    case .removed(let item): return "\(item) removed"
    case .fieldSet(let value, let item, let field, let replacing, let by):
      return "\(by) sets \(item).\(field) to \(value) over \(replacing ?? "nothing")"
    case .forbidden(let item, let why): return "\(item) forbidden (\(why))"
    case .acknowledged(let file, let by, let request, let items):
      return "\(by) \(request) of \(letter(file)) ok (\(items.joined(separator: ",")))"
    case .conflictReported(let file, let by, let copy):
      return "\(by) told of a conflict on \(letter(file))\(copy == nil ? "" : " (copy)")"
    case .exitFlushed(let file, let by, _, let error):
      return "\(by) exit flush of \(letter(file))\(error ? " reported an error" : "")"
    case .settled(let file, let by, let error):
      return "\(by) at rest on \(letter(file))\(error ? " with an error" : "")"
    case .final(let file, let by, let memory, let saveError, let loadError):
      let errors = [saveError, loadError].compactMap { $0 }.joined(separator: "; ")
      return "\(by) ends with [\(memory.joined(separator: ","))] of \(letter(file))"
        + (errors.isEmpty ? "" : " (\(errors))")
    case .listing(let files): return "\(files.count) files in the folder"
    case .unsettled(let why): return why
    case .idle(let file, let by): return "\(by) idle on \(letter(file))"
    case .gapFilled(let file): return "\(letter(file)) written into a replacement's gap"
    }
  }

  /// The state after an event, for the log: the clock, the files (copies by content, since
  /// their names carry the wall-clock time), and the phase of every live process's keys.
  private func digest() -> String {
    var text = "t=\(clockwork.now / .milliseconds(1))ms"
    var copies: [String] = []
    for (path, data) in disk.memory.files.sorted(by: { $0.key < $1.key }) {
      let name = (path as NSString).lastPathComponent
      if KeptCopy(url: URL(fileURLWithPath: path)) != nil {
        copies.append(Self.hash(data))
      } else {
        text += " \(name)=\(Self.hash(data))"
      }
    }
    text += " copies=\(copies.sorted().joined(separator: ","))"
    for case let process? in processes where process.isAlive {
      let phases = files.map { process.keys[$0.rawValue]?.phase() ?? "-" }
      text += " \(process.name):\(phases.joined(separator: ","))"
    }
    return text
  }

  /// FNV-1a: the same bytes give the same number in every process.
  private static func hash(_ data: Data) -> String {
    var hash: UInt64 = 0xcbf2_9ce4_8422_2325
    for byte in data {
      hash ^= UInt64(byte)
      hash = hash &* 0x100_0000_01b3
    }
    return String(hash, radix: 36)
  }
}
