import Foundation

/// Runs a ``MigrationChain`` from a file's version to the latest, and says which version or step
/// is to blame when it fails.
struct MigrationRunner<Latest: Codable & Sendable> {
  /// The content as it moves along the chain.
  enum Payload {
    case typed(any Sendable)
    case json(JSONValue)
  }

  let chain: MigrationChain<Latest>
  /// Where paths start: `content` for an envelope, `nil` for a bare (legacy) file.
  let root: String?
  /// The stored content, re-read only to diagnose a failure.
  let originalContent: () -> JSONValue?

  /// Migrates `payload`, which holds version `version`'s content, to `Latest`.
  func run(from version: Int, _ payload: Payload) throws(FormatError) -> Latest {
    guard let start = chain.stageIndex(of: version) else {
      // The callers check the range first; a miss here is a Keepsake bug, not bad data.
      preconditionFailure("Keepsake bug: version \(version) is not in the chain.")
    }
    var payload = payload
    // The JSON step whose output `payload` holds; nil while it holds the file's own content or a
    // typed model.
    var producedBy: (from: Int, to: Int)?
    for index in start..<chain.steps.count {
      let from = chain.stages[index].version
      let to = from + 1
      switch chain.steps[index] {
      case .typed(let step):
        let input = try materialize(payload, as: chain.stages[index], producedBy: producedBy)
        payload = .json(.null)  // NB: drops the old representation before the step allocates.
        do {
          payload = .typed(try step(input))
        } catch {
          throw failure(of: (from, to), error)
        }
        producedBy = nil
      case .json(let step):
        var content: JSONValue
        switch payload {
        case .json(let json): content = json
        case .typed(let model): content = try json(of: model, stage: chain.stages[index], next: to)
        }
        // NB: `payload` must not keep a second reference, or the step's edits would copy the tree.
        payload = .json(.null)
        do {
          try step(&content)
        } catch {
          throw failure(of: (from, to), error)
        }
        payload = .json(content)
        producedBy = (from, to)
      }
    }
    let latest = try materialize(
      payload, as: chain.stages[chain.stages.count - 1], producedBy: producedBy)
    guard let value = latest as? Latest else {
      preconditionFailure(
        "Keepsake bug: the chain produced \(type(of: latest)), not \(Latest.self).")
    }
    return value
  }

  /// The typed model for `stage`, decoding it when the payload is JSON.
  private func materialize(
    _ payload: Payload,
    as stage: MigrationStage,
    producedBy step: (from: Int, to: Int)?
  ) throws(FormatError) -> any Sendable {
    let json: JSONValue
    switch payload {
    case .typed(let model): return model
    case .json(let content): json = content
    }
    do {
      return try stage.decodeJSON(json.jsonData())
    } catch let error as DecodingError {
      let failure = DecodingFailure(error, lookup: { json.value(at: $0) })
      guard let step else {
        throw .decodingFailed(
          version: stage.version, codingPath: render(failure.path), problem: failure.problem)
      }
      // The step's output does not fit the next model. Blame the file if its own content was
      // already invalid for its version; otherwise blame the step.
      if let original = diagnoseOriginal(from: step.from) { throw original }
      throw .migrationFailed(
        from: step.from, to: step.to, codingPath: render(failure.path),
        reason: failure.problem.description)
    } catch {
      throw .decodingFailed(
        version: stage.version, codingPath: render([]),
        problem: .invalidValue(String(describing: error)))
    }
  }

  /// Encodes a typed model as JSON for a JSON-level step.
  private func json(of model: any Sendable, stage: MigrationStage, next: Int) throws(FormatError)
    -> JSONValue
  {
    do {
      return try JSONValue(reading: try stage.encodeJSON(model))
    } catch {
      throw .migrationFailed(
        from: stage.version, to: next, codingPath: render([]),
        reason: "version \(stage.version)'s model could not be encoded as JSON: \(error)")
    }
  }

  /// Decodes the stored content as its own version's model; returns the failure, if any.
  private func diagnoseOriginal(from version: Int) -> FormatError? {
    guard let index = chain.stageIndex(of: version), let original = originalContent() else {
      return nil
    }
    do {
      _ = try chain.stages[index].decodeJSON(original.jsonData())
      return nil
    } catch let error as DecodingError {
      let failure = DecodingFailure(error, lookup: { original.value(at: $0) })
      return .decodingFailed(
        version: version, codingPath: render(failure.path), problem: failure.problem)
    } catch {
      return nil
    }
  }

  private func failure(of step: (from: Int, to: Int), _ error: any Error) -> FormatError {
    let (path, reason): ([JSONPathComponent], String)
    switch error {
    case let error as MigrationError:
      (path, reason) = (error.path, error.message)
    case let error as DecodingError:
      let failure = DecodingFailure(error, lookup: { _ in nil })
      (path, reason) = (failure.path, failure.problem.description)
    default:
      (path, reason) = ([], String(describing: error))
    }
    return .migrationFailed(from: step.from, to: step.to, codingPath: render(path), reason: reason)
  }

  func render(_ path: [JSONPathComponent]) -> String {
    JSONPathComponent.render(path, root: root)
  }
}
