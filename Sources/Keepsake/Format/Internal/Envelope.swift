/// The keys of a stored file: `{"content": ..., "version": N}`, and in a synced folder
/// `"ancestry"` (see `Ancestry`), which readers ignore.
enum EnvelopeCodingKey: String, CodingKey {
  case version
  case content
  case ancestry
}

/// Writes a value inside its envelope in one encoding pass.
struct EncodingEnvelope<Format: VersionedFormat>: Encodable {
  let value: Format.Value
  /// Written only for files in a synced folder, so every other file keeps its exact bytes.
  var ancestry: Ancestry? = nil

  func encode(to encoder: any Encoder) throws {
    var container = encoder.container(keyedBy: EnvelopeCodingKey.self)
    try container.encode(Format.currentVersion, forKey: .version)
    try container.encode(value, forKey: .content)
    try container.encodeIfPresent(ancestry, forKey: .ancestry)
  }
}

/// Reads an envelope in the single decoding pass that the common cases need.
///
/// NB: This is the performance-critical path. A current-version file decodes its content as
/// `Format.Value` in the same pass that reads `"version"`, so loading costs what decoding the bare
/// value would. An older file whose next step is typed decodes that version's model in the same
/// pass too. Everything else (no envelope, a JSON-level step, a damaged or future file) declines
/// with ``FastPathDeclined`` and is read by the slower, fully diagnosing path.
struct DecodingEnvelope<Format: VersionedFormat>: Decodable {
  enum Outcome {
    case current(Format.Value)
    case older(version: Int, model: any Sendable, isEnveloped: Bool)
  }

  let outcome: Outcome

  init(from decoder: any Decoder) throws {
    let container = try? decoder.container(keyedBy: EnvelopeCodingKey.self)
    guard let container, container.contains(.version) else {
      // No envelope: a legacy file, read in this same pass when its next step is typed.
      outcome = try Self.decodeLegacy(from: decoder)
      return
    }
    guard let version = try? container.decode(Int.self, forKey: .version),
      container.contains(.content)
    else { throw FastPathDeclined() }

    do {
      if version == Format.currentVersion {
        outcome = .current(try container.decode(Format.Value.self, forKey: .content))
        return
      }
      let chain = Format.migrations
      guard version < Format.currentVersion, let index = chain.stageIndex(of: version),
        chain.steps[index].isTyped
      else { throw FastPathDeclined() }
      outcome = .older(
        version: version, model: try chain.stages[index].decodeContent(container), isEnveloped: true
      )
    } catch let error as DecodingError {
      throw ContentDecodingFailure(version: version, isEnveloped: true, error: error)
    }
  }

  private static func decodeLegacy(from decoder: any Decoder) throws -> Outcome {
    let chain = Format.migrations
    guard let version = Format.legacyVersion, version < Format.currentVersion,
      let index = chain.stageIndex(of: version), chain.steps[index].isTyped
    else { throw FastPathDeclined() }
    do {
      return .older(
        version: version, model: try chain.stages[index].decodeTopLevel(decoder), isEnveloped: false
      )
    } catch let error as DecodingError {
      throw ContentDecodingFailure(version: version, isEnveloped: false, error: error)
    }
  }
}

/// The fast path cannot read this file; the diagnosing path will.
struct FastPathDeclined: Error {}

/// The envelope (or legacy file) was valid but its content did not decode as the declared version's model.
struct ContentDecodingFailure: Error {
  let version: Int
  /// Whether paths start at the envelope's `content` (otherwise at the top level).
  let isEnveloped: Bool
  let error: DecodingError
}
