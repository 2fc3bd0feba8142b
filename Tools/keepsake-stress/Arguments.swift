import Foundation

/// The command line: positional words, `--name value` options and `--flag`s.
struct Arguments {
  static let flags: Set<String> = ["--report-saves", "--ack-before-save", "--help"]
  var positional: [String] = []
  var options: [String: String] = [:]
  var setFlags: Set<String> = []

  init(_ words: [String]) throws {
    var index = 0
    while index < words.count {
      let word = words[index]
      index += 1
      if Self.flags.contains(word) {
        setFlags.insert(word)
      } else if word.hasPrefix("--") {
        guard index < words.count else { throw UsageError("\(word) needs a value") }
        options[word] = words[index]
        index += 1
      } else {
        positional.append(word)
      }
    }
  }

  func integer(_ name: String, default value: Int) throws -> Int {
    guard let text = options[name] else { return value }
    guard let number = Int(text), number >= 0 else {
      throw UsageError("\(name) takes a whole number, not \(text)")
    }
    return number
  }

  func seconds(_ name: String, default value: Double) throws -> Double {
    guard let text = options[name] else { return value }
    guard let number = Double(text), number >= 0 else {
      throw UsageError("\(name) takes a number of seconds, not \(text)")
    }
    return number
  }

  func seed() throws -> UInt64? {
    guard let text = options["--seed"] else { return nil }
    guard let seed = UInt64(text) else {
      throw UsageError("--seed takes a whole number, not \(text)")
    }
    return seed
  }

  func file() throws -> URL {
    guard positional.count == 2 else { throw UsageError("\(positional[0]) takes one file") }
    return URL(fileURLWithPath: positional[1])
  }

  func rejectUnknown(_ known: Set<String>) throws {
    if let unknown = Set(options.keys).subtracting(known).sorted().first {
      throw UsageError("unknown option \(unknown)")
    }
  }
}

struct UsageError: Error, CustomStringConvertible {
  var description: String
  init(_ description: String) { self.description = description }
}
