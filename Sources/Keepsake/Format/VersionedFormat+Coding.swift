import Foundation

extension VersionedFormat {
  /// Reads a stored file: an envelope of any version this app knows, or a bare legacy file.
  ///
  /// A current-version file is decoded in a single decoding pass, as fast as decoding the
  /// bare value. An older file is decoded as its own version's model and migrated step by step to
  /// ``currentVersion``. Unknown keys anywhere are ignored.
  ///
  /// Reading never changes `data`'s source; on failure the caller must leave the file as it is
  /// (Keepsake's keys do).
  ///
  /// - Parameter data: The file's bytes.
  /// - Returns: The value, migrated to the current version.
  /// - Throws: ``FormatError``: ``FormatError/versionFromFuture(found:supported:)`` for a file from
  ///   a newer app; ``FormatError/decodingFailed(version:codingPath:problem:)`` naming the version
  ///   and path (`content[3].pinned`) when the content does not match its version's model;
  ///   ``FormatError/migrationFailed(from:to:codingPath:reason:)`` naming the step;
  ///   ``FormatError/notJSON(byteCount:offset:reason:)``, ``FormatError/invalidEnvelope(_:)``,
  ///   ``FormatError/missingLegacyVersion(topLevel:)`` or
  ///   ``FormatError/versionTooOld(found:oldest:)`` for files that cannot be read at all.
  public static func decode(_ data: Data) throws(FormatError) -> Value {
    try decode(data, memo: nil)
  }

  /// Reads a stored file as ``decode(_:)`` does; a current-version file whose content is an
  /// array is read through `memo`, decoding only the elements whose bytes changed since the
  /// last reading (a file key's reads of its file).
  ///
  /// - Throws: What ``decode(_:)`` throws for the same data.
  static func decode(_ data: Data, memo: CodingMemo?) throws(FormatError) -> Value {
    // NB: input that would crash JSONDecoder is refused by `JSONCoding.decode` and lands in
    // the diagnosing path below, which reports it.
    if let value = decodeOwnLayout(data, memo: memo) { return value }
    do {
      switch try JSONCoding.decode(DecodingEnvelope<Self>.self, from: data).outcome {
      case .current(let value):
        return value
      case .older(let version, let model, let isEnveloped):
        try checkRange(version)
        return try runner(root: isEnveloped ? "content" : nil, data: data)
          .run(from: version, .typed(model))
      }
    } catch let error as FormatError {
      throw error
    } catch let failure as ContentDecodingFailure {
      // The lookup parses the file again, which only happens on this failure path.
      var decoding = DecodingFailure(
        failure.error,
        lookup: { path in (try? JSONValue(reading: data))?.value(at: path) }
      )
      // An envelope's paths start at its "content" key, rendered as the root.
      if failure.isEnveloped { decoding = decoding.droppingRoot() }
      throw .decodingFailed(
        version: failure.version,
        codingPath: JSONPathComponent.render(
          decoding.path, root: failure.isEnveloped ? "content" : nil),
        problem: decoding.problem
      )
    } catch {
      // FastPathDeclined, or a DecodingError outside the content (not JSON at all).
      return try decodeDiagnosing(data)
    }
  }

  /// Decodes a current-version file exactly as ``encode(_:)`` lays it out, or returns `nil`.
  ///
  /// NB: `JSONDecoder` decodes a top-level array noticeably faster than the same array nested
  /// under a key, so files this writer produced,
  /// `{"content":X,"version":N}` byte for byte, decode `X` as a top-level value. This is exact,
  /// not a guess: if the bytes between the prefix and the suffix form one valid JSON value, the
  /// file is precisely the envelope `{"content": X, "version": N}`. Anything else (another
  /// layout, another version, invalid content) returns `nil` and takes the general path, which
  /// also produces the diagnostics.
  private static func decodeOwnLayout(_ data: Data, memo: CodingMemo?) -> Value? {
    let (prefix, suffix) = ownLayout
    var end = data.endIndex
    // Tolerate a trailing newline, as editors add one.
    while end > data.startIndex, data[end - 1] == 0x0A || data[end - 1] == 0x0D { end -= 1 }
    // A file in a synced folder starts with its ancestry, read exactly (see `Ancestry`).
    let start: Int
    if data.starts(with: prefix) {
      start = data.startIndex + prefix.count
    } else if let (_, offset) = Ancestry.scanEnvelopePrefix(data) {
      start = data.startIndex + offset
    } else {
      return nil
    }
    guard end - start >= suffix.count + 1,
      data[(end - suffix.count)..<end].elementsEqual(suffix)
    else { return nil }
    let content = data[start..<(end - suffix.count)]
    return try? JSONCoding.decode(Value.self, from: content, memo: memo)
  }

  /// Writes `value` as the current version: `{"content": <value's JSON>, "version": N}`.
  ///
  /// Keys are sorted, so equal values always give equal bytes (stable diffs, stable hashes). The
  /// output is compact rather than pretty-printed: it stays readable JSON, costs less to write and
  /// read, and tools such as `keepsake inspect` can pretty-print it for a person.
  ///
  /// - Throws: The `EncodingError` of the value's `Encodable` conformance, for example for a
  ///   non-finite `Double`; nothing is written in that case.
  public static func encode(_ value: Value) throws -> Data {
    precondition(currentVersion >= 1, "Format versions start at 1, not \(currentVersion).")
    return try JSONCoding.encode(EncodingEnvelope<Self>(value: value))
  }

  /// Writes `value` as ``encode(_:)`` does; when the value is an array, the elements that are
  /// the same values `memo` kept from the key's last encoding are reused, not encoded again.
  ///
  /// NB: the envelope is written around the content as ``EncodingEnvelope`` writes it with
  /// sorted keys, `{"content":X,"version":N}` (the layout `decodeOwnLayout` reads).
  ///
  /// - Throws: What ``encode(_:)`` throws for the same value.
  static func encode(_ value: Value, memo: CodingMemo?) throws -> Data {
    precondition(currentVersion >= 1, "Format versions start at 1, not \(currentVersion).")
    let (prefix, suffix) = ownLayout
    return try JSONCoding.encode(
      value, memo: memo,
      around: (
        prefix: prefix, suffix: suffix, depth: 1,
        whole: { try JSONCoding.encode(EncodingEnvelope<Self>(value: value)) }
      ))
  }

  /// The bytes around the content of a current-version file as this writer lays it out,
  /// `{"content":` and `,"version":N}`.
  private static var ownLayout: (prefix: [UInt8], suffix: [UInt8]) {
    (Array(#"{"content":"#.utf8), Array(#","version":\#(currentVersion)}"#.utf8))
  }

  /// Writes `value` as ``encode(_:)`` does, with the ancestry of a file in a synced folder first
  /// (`{"ancestry":…,"content":…,"version":N}`; see "Devices" in the Data safety article).
  ///
  /// - Throws: The `EncodingError` of the value's `Encodable` conformance.
  static func encode(_ value: Value, ancestry: Ancestry) throws -> Data {
    precondition(currentVersion >= 1, "Format versions start at 1, not \(currentVersion).")
    return try JSONCoding.encode(EncodingEnvelope<Self>(value: value, ancestry: ancestry))
  }

  /// Reads only the envelope of `data`: which version a read would start from, and whether it can.
  ///
  /// Meant for diagnostics and tests; the content is not decoded, so a file reported as readable
  /// may still fail ``decode(_:)``. (`keepsake inspect` does not know the app's format type, so it
  /// reads the envelope itself.)
  package static func version(of data: Data) -> FormatVersionInfo {
    do throws(FormatError) {
      let (layout, version, _) = try classify(data)
      return FormatVersionInfo(
        layout: layout, version: version, currentVersion: currentVersion, problem: nil)
    } catch {
      let (layout, version): (FormatVersionInfo.Layout?, Int?) =
        switch error {
        case .versionFromFuture(let found, _), .versionTooOld(let found, _): (.envelope, found)
        case .missingLegacyVersion: (.bare, nil)
        default: (nil, nil)
        }
      return FormatVersionInfo(
        layout: layout, version: version, currentVersion: currentVersion, problem: error)
    }
  }

  /// The slow path: parses the whole file to say exactly why the fast path could not read it.
  private static func decodeDiagnosing(_ data: Data) throws(FormatError) -> Value {
    let (layout, version, content) = try classify(data)
    return try runner(root: layout == .envelope ? "content" : nil, data: data).run(
      from: version, .json(content))
  }

  /// Finds the envelope (or the legacy layout), checks its version, and returns the content.
  private static func classify(
    _ data: Data
  ) throws(FormatError) -> (FormatVersionInfo.Layout, Int, JSONValue) {
    let document = try JSONValue(parsing: data)
    guard case .object(let object) = document, let versionValue = object["version"] else {
      guard let legacyVersion else {
        throw .missingLegacyVersion(topLevel: document.typeDescription)
      }
      try checkRange(legacyVersion)
      return (.bare, legacyVersion, document)
    }
    guard case .int(let version) = versionValue else {
      throw .invalidEnvelope(.versionNotAnInteger(found: versionValue.typeDescription))
    }
    guard version >= 1 else { throw .invalidEnvelope(.versionNotPositive(version)) }
    try checkRange(version)
    guard let content = object["content"] else { throw .invalidEnvelope(.missingContent) }
    return (.envelope, version, content)
  }

  private static func checkRange(_ version: Int) throws(FormatError) {
    guard version <= currentVersion else {
      throw .versionFromFuture(found: version, supported: currentVersion)
    }
    let chain = migrations
    precondition(
      chain.latestVersion == currentVersion,
      "\(Self.self).migrations ends at version \(chain.latestVersion), but currentVersion is "
        + "\(currentVersion). Add a migration step to \(currentVersion)."
    )
    guard version >= chain.oldestVersion else {
      throw .versionTooOld(found: version, oldest: chain.oldestVersion)
    }
  }

  private static func runner(root: String?, data: Data) -> MigrationRunner<Value> {
    MigrationRunner(chain: migrations, root: root) {
      guard let document = try? JSONValue(reading: data) else { return nil }
      return root == nil ? document : document["content"]
    }
  }
}
