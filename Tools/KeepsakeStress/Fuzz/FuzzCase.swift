import Foundation

/// One damaged file for the corruption fuzz: its bytes and how they were made.
public struct FuzzCase: Sendable {
  /// The case's index in its run; with the seed it reproduces the case.
  public var index: Int
  /// The fixture it started from.
  public var fixture: String
  /// What was done to it.
  public var damage: String
  /// The damaged bytes.
  public var bytes: Data

  /// The case `index` of the run with `seed`.
  ///
  /// Even indices walk a fixed table first (truncation of every fixture at every length, every
  /// type of version field, every deep-nesting shape and depth, every huge number and invalid
  /// UTF-8 sequence, interleaved so a short run samples each); the rest are random damage drawn
  /// from the seed.
  public static func make(seed: UInt64, index: Int) -> FuzzCase {
    if index % 2 == 0, index / 2 < systematic.count {
      let (fixture, damage, bytes) = systematic[index / 2]()
      return FuzzCase(index: index, fixture: fixture, damage: damage, bytes: bytes)
    }
    var random = SeededGenerator(seed: seed, item: index)
    let fixture = Fixtures.all.randomElement(using: &random) ?? Fixtures.all[0]
    let kind = Mutator.Kind.allCases.randomElement(using: &random) ?? .bitFlip
    let (bytes, damage) = Mutator.mutate(fixture.bytes, kind: kind, using: &random)
    return FuzzCase(
      index: index, fixture: fixture.name, damage: "\(kind.rawValue): \(damage)", bytes: bytes)
  }

  /// How many cases the fixed table holds.
  public static var systematicCount: Int { systematic.count }

  private typealias Maker = @Sendable () -> (String, String, Data)

  /// The fixed table, built lazily: each entry makes its bytes only when its case runs.
  private static let systematic: [Maker] = {
    var families: [[Maker]] = []
    families.append(
      Fixtures.all.flatMap { fixture in
        (0...fixture.bytes.count).map { length -> Maker in
          { (fixture.name, "truncated to \(length) bytes", Data(fixture.bytes.prefix(length))) }
        }
      })
    families.append(
      Fixtures.all.flatMap { fixture in
        Mutator.versionTokens.map { token -> Maker in
          {
            (
              fixture.name, "version \(token)",
              Mutator.envelope(version: token, content: fixture.bytes)
            )
          }
        }
      })
    families.append(
      [100, 512, 513, 100_000].flatMap { depth -> [Maker] in
        Mutator.deepShapes.map { shape -> Maker in
          { ("none", "\(shape.name), depth \(depth)", shape.make(depth)) }
        }
      })
    families.append(
      Mutator.hugeNumbers.map { number -> Maker in
        let text = number.count > 40 ? "\(number.count) nines" : number
        return {
          (
            "drafts-v3.json", "version \(text)",
            Mutator.envelope(version: number, content: Fixtures.all[3].bytes)
          )
        }
      })
    families.append(
      Mutator.invalidSequences.map { sequence -> Maker in
        {
          // Inside the first draft's body, where a decoder must notice it.
          let bytes = [UInt8](Fixtures.all[3].bytes)
          let at = (bytes.firstIndex(of: UInt8(ascii: "P")) ?? 0) + 1
          var damaged = bytes
          damaged.insert(contentsOf: sequence, at: at)
          return ("drafts-v3.json", "bytes \(sequence) inside a string", Data(damaged))
        }
      })
    families.append([
      { ("none", "empty file", Data()) },
      { ("none", "a lone byte order mark", Data([0xEF, 0xBB, 0xBF])) },
      { ("none", "zeros", Data(count: 4096)) },
      { ("none", "a version only", Data("{\"version\":3}".utf8)) },
    ])
    // Round robin, so the first cases of a short run touch every family.
    var table: [Maker] = []
    var index = 0
    while families.contains(where: { index < $0.count }) {
      for family in families where index < family.count { table.append(family[index]) }
      index += 1
    }
    return table
  }()
}
