import Foundation

/// The `Encoder` of Keepsake's JSON codec: writes JSON bytes as the value encodes itself.
///
/// NB: Foundation's encoder builds a tree of enums and dictionaries, then writes it. This one
/// writes each value where it goes, so it must know which container is being written. Containers
/// form a stack of *frames*; a container is used while its frame is open, and opening or using an
/// outer container closes the nested ones (an object is closed by sorting its members, see
/// ``closeObject(_:)``). That covers synthesized and hand-written `encode(to:)` alike. A few
/// patterns Foundation supports cannot be written in one pass: using a nested container again
/// after its parent went on, `superEncoder()`, asking for a second kind of container, or for the
/// same nested container twice. They set ``needsFoundation`` and the whole value is encoded
/// again by Foundation's `JSONEncoder`, so the output stays Foundation's.
final class JSONEncodingState: Encoder {
  struct Frame {
    var isObject: Bool
    var serial: Int
    /// The slot (the value being encoded) that opened the frame.
    var slot: Int
    /// The length of ``path`` when the frame was opened: the coding path of the value whose
    /// container it is (or whose container's nested container).
    var pathDepth: Int
    /// The frame's place in its parent frame, for a nested container (its key is in
    /// ``frameKeys``).
    var step: PathStep?
    /// Where the frame's members start in ``members`` (objects).
    var memberBase: Int
    /// Members or elements written so far.
    var count = 0
    /// The member of the parent object that holds this frame, if any.
    var parentMember: Int
  }

  /// One member of an open object, as written: `"key":value`.
  struct Member {
    var start: Int
    /// The offset of the value, after the colon.
    var valueStart: Int
    var end: Int
    /// The key's own text when it is not plain ASCII (escaped or other characters), else `nil`.
    var key: String?
    /// Whether the value is a nested container.
    var isContainer: Bool
  }

  /// One value being encoded by its `encode(to:)`.
  struct Slot {
    /// The frame of the container the value asked for, if any.
    var frame: Int?
    /// Whether the value wrote itself through its single-value container.
    var wroteSingleValue = false
  }

  /// One step of ``path`` (or a frame's): an array position, or a member whose key is in
  /// ``pathKeys`` (or ``frameKeys``).
  ///
  /// NB: two plain words, so a step is pushed and popped by copying them: a `CodingStep?`,
  /// an enum holding an `any CodingKey`, was copied and destroyed through value witnesses for
  /// every element of an array, a third of the time of encoding an array of small structs
  ///.
  struct PathStep {
    /// The array position, or where the key is in ``pathKeys``.
    var place: Int
    var isKey: Bool

    /// The key the step stands for, its key taken from `keys` (``pathKeys`` or ``frameKeys``).
    func codingKey(in keys: [any CodingKey]) -> any CodingKey {
      isKey ? keys[place] : JSONCodingKey(index: place)
    }
  }

  /// A container's frame, valid while the frame with this serial number is open.
  struct FrameReference {
    var index: Int
    var serial: Int
  }

  // NB: `@exclusivity(unchecked)`: a class's stored properties are checked for exclusive access
  // on every access at run time, which cost this encoder half its time (the standard library and
  // Foundation are built with `-enforce-exclusivity=unchecked`). The state belongs to one
  // `encode` call on one thread and no user code runs while a property is being accessed.
  @exclusivity(unchecked) var output = JSONOutput()
  /// The coding path of the value being written, as Foundation's encoder gives it: the places
  /// of the values, not of the nested containers between them (see ``containerPath(_:)``).
  @exclusivity(unchecked) var path: [PathStep] = []
  /// The keys of the path's members, in order (``PathStep/place``).
  @exclusivity(unchecked) var pathKeys: [any CodingKey] = []
  /// The keys of the open nested containers' members, in order.
  @exclusivity(unchecked) var frameKeys: [any CodingKey] = []
  @exclusivity(unchecked) var frames: [Frame] = []
  @exclusivity(unchecked) var members: [Member] = []
  @exclusivity(unchecked) var slots: [Slot] = []
  @exclusivity(unchecked) private var nextSerial = 0
  /// Set when the value uses containers in a way this encoder cannot write in one pass.
  @exclusivity(unchecked) var needsFoundation = false
  /// Set when containers nest 512 deep, which Foundation refuses to write.
  @exclusivity(unchecked) var isTooDeep = false
  /// How many containers enclose what is written, outside the output (an array written into
  /// an envelope's member): they count toward the depth Foundation refuses.
  @exclusivity(unchecked) var enclosingDepth = 0
  @exclusivity(unchecked) var scratch: [UInt8] = []

  init() {
    frames.reserveCapacity(16)
    members.reserveCapacity(64)
    slots.reserveCapacity(16)
    path.reserveCapacity(16)
  }

  var codingPath: [any CodingKey] { path.map { $0.codingKey(in: pathKeys) } }

  /// Adds an array position to the path.
  func pushIndex(_ index: Int) {
    path.append(PathStep(place: index, isKey: false))
  }

  /// Adds a member's key to the path.
  func pushKey(_ key: some CodingKey) {
    pathKeys.append(key)
    path.append(PathStep(place: pathKeys.count - 1, isKey: true))
  }

  /// Removes the path's last step.
  func popStep() {
    if path.removeLast().isKey { pathKeys.removeLast() }
  }

  /// The step of a nested container for the member `key`.
  func frameStep(_ key: some CodingKey) -> PathStep {
    frameKeys.append(key)
    return PathStep(place: frameKeys.count - 1, isKey: true)
  }
  var userInfo: [CodingUserInfoKey: Any] { [:] }

  // MARK: - Encoder

  func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
    KeyedEncodingContainer(
      JSONKeyedEncodingContainer<Key>(state: self, frame: slotContainer(isObject: true)))
  }

  func unkeyedContainer() -> any UnkeyedEncodingContainer {
    JSONUnkeyedEncodingContainer(state: self, frame: slotContainer(isObject: false))
  }

  func singleValueContainer() -> any SingleValueEncodingContainer { self }

  /// The frame of the current value's container, opened on first use.
  func slotContainer(isObject: Bool) -> FrameReference {
    let invalid = FrameReference(index: -1, serial: -1)
    guard !needsFoundation, let slotIndex = slots.indices.last else { return invalid }
    let slot = slots[slotIndex]
    if let index = slot.frame {
      // Asked again (Foundation returns the same container): the same frame, if the same kind.
      guard frames[index].isObject == isObject else {
        needsFoundation = true
        return invalid
      }
      closeFrames(above: index)
      return FrameReference(index: index, serial: frames[index].serial)
    }
    guard !slot.wroteSingleValue else {
      needsFoundation = true
      return invalid
    }
    let reference = openFrame(isObject: isObject, parentMember: -1, step: nil)
    slots[slotIndex].frame = reference.index
    return reference
  }

  // MARK: - Frames

  /// Opens a container at the end of the output, inside the current slot; `step` is its place
  /// in its parent for a nested container (a key made with ``frameStep(_:)``, removed when the
  /// frame closes).
  func openFrame(isObject: Bool, parentMember: Int, step: PathStep?) -> FrameReference {
    if enclosingDepth + frames.count + 1 >= JSONLimits.maximumDepth { isTooDeep = true }
    nextSerial += 1
    frames.append(
      Frame(
        isObject: isObject, serial: nextSerial, slot: slots.count - 1, pathDepth: path.count,
        step: step, memberBase: members.count, parentMember: parentMember))
    output.append(isObject ? UInt8(ascii: "{") : UInt8(ascii: "["))
    return FrameReference(index: frames.count - 1, serial: nextSerial)
  }

  /// The index of `reference`'s frame, ready to write to, after closing the frames above it.
  ///
  /// `nil` when it cannot be written in one pass (the value goes to Foundation).
  func activate(_ reference: FrameReference) -> Int? {
    guard !needsFoundation else { return nil }
    guard reference.index >= 0, reference.index < frames.count,
      frames[reference.index].serial == reference.serial,
      frames[reference.index].slot == slots.count - 1
    else {
      // A container used after its frame closed, or from inside another value's encoding.
      needsFoundation = true
      return nil
    }
    closeFrames(above: reference.index)
    return reference.index
  }

  func closeFrames(above index: Int) {
    while frames.count - 1 > index { closeTopFrame() }
  }

  func closeTopFrame() {
    guard let frame = frames.last else { return }
    if frame.isObject {
      closeObject(frame)
    } else {
      output.append(UInt8(ascii: "]"))
    }
    frames.removeLast()
    if frame.step?.isKey == true { frameKeys.removeLast() }
    if frame.parentMember >= 0 { members[frame.parentMember].end = output.count }
  }

  // MARK: - Values

  /// Writes `value` at the end of the output, at position `index` of the current array (or at
  /// the top level, or as a single value, when `nil`).
  func encodeValue<T: Encodable>(_ value: T, index: Int?, isTopLevel: Bool = false) throws {
    guard !needsFoundation else { return }
    if try encodeSpecially(value, step: index.map(CodingStep.index)) { return }
    if let index { pushIndex(index) }
    try encodeContents(value, isTopLevel: isTopLevel)
    if index != nil && !needsFoundation { popStep() }
  }

  /// Writes `value` at the end of the output, as the member `key` of the current object.
  func encodeValue<T: Encodable>(_ value: T, key: some CodingKey) throws {
    guard !needsFoundation else { return }
    if try encodeSpecially(value, step: .key(key)) { return }
    pushKey(key)
    try encodeContents(value, isTopLevel: false)
    if !needsFoundation { popStep() }
  }

  /// Writes `value` if it is of a type Foundation's JSONEncoder treats specially, or a UUID.
  ///
  /// The types are those of Foundation's default strategies. Returns whether `value` was one;
  /// `step` names its place, for an error.
  private func encodeSpecially<T: Encodable>(
    _ value: T, step: @autoclosure () -> CodingStep?
  ) throws -> Bool {
    // NB: Foundation tests `value as? Date`, which also matches an `Optional<Date>`; that
    // optional reaches the same bytes here through its own `encode(to:)`.
    if T.self == Date.self {
      try writeFloat(cast(value, to: Date.self).timeIntervalSinceReferenceDate, step: step())
    } else if T.self == Data.self {
      writeString(cast(value, to: Data.self).base64EncodedString())
    } else if T.self == URL.self {
      writeString(cast(value, to: URL.self).absoluteString)
    } else if T.self == Decimal.self {
      output.append(contentsOf: cast(value, to: Decimal.self).description)
    } else if T.self == UUID.self {
      writeUUID(cast(value, to: UUID.self))
    } else {
      return false
    }
    return true
  }

  /// Runs `value`'s `encode(to:)` in a slot of its own, and closes what it opened.
  private func encodeContents<T: Encodable>(_ value: T, isTopLevel: Bool) throws {
    slots.append(Slot())
    try value.encode(to: self)
    guard !needsFoundation else { return }
    let slot = slots[slots.count - 1]
    if let frame = slot.frame {
      closeFrames(above: frame - 1)
    } else if !slot.wroteSingleValue {
      if isTopLevel {
        throw EncodingError.invalidValue(
          value,
          .init(codingPath: [], debugDescription: "Top-level \(T.self) did not encode any values."))
      }
      // A value that encodes nothing is an empty object, as in Foundation.
      if enclosingDepth + frames.count + 1 >= JSONLimits.maximumDepth { isTooDeep = true }
      output.append(contentsOf: [UInt8(ascii: "{"), UInt8(ascii: "}")])
    }
    slots.removeLast()
  }

  /// What the output and stacks were, to undo a value whose encoding threw (a type may catch the
  /// error and go on, and Foundation would have kept nothing of that value).
  struct Mark {
    var output: Int
    var path: Int
    var pathKeys: Int
    var frameKeys: Int
    var frames: Int
    var members: Int
    var slots: Int
  }

  func mark() -> Mark {
    Mark(
      output: output.count, path: path.count, pathKeys: pathKeys.count,
      frameKeys: frameKeys.count, frames: frames.count, members: members.count,
      slots: slots.count)
  }

  func restore(_ mark: Mark) {
    guard !needsFoundation else { return }
    output.truncate(to: mark.output)
    path.removeSubrange(mark.path...)
    pathKeys.removeSubrange(mark.pathKeys...)
    frameKeys.removeSubrange(mark.frameKeys...)
    frames.removeSubrange(mark.frames...)
    members.removeSubrange(mark.members...)
    slots.removeSubrange(mark.slots...)
  }

  /// `value` as `U`, which the caller checked is its own type.
  @inline(__always)
  private func cast<T, U>(_ value: T, to type: U.Type) -> U {
    // NB: reached only after `T.self == U.self`: a conversion to the same type, without the
    // dynamic cast `as?` would cost on every value.
    unsafeBitCast(value, to: U.self)
  }
}
