/// An unkeyed container writing elements into its frame, in order.
///
/// NB: three words, so it fits in an existential's inline buffer: no box per array.
struct JSONUnkeyedEncodingContainer: UnkeyedEncodingContainer {
  let state: JSONEncodingState
  let frame: JSONEncodingState.FrameReference

  var codingPath: [any CodingKey] { state.containerPath(frame) }

  var count: Int {
    guard frame.index >= 0, frame.index < state.frames.count,
      state.frames[frame.index].serial == frame.serial
    else { return 0 }
    return state.frames[frame.index].count
  }

  mutating func encodeNil() throws {
    guard let index = begin() else { return }
    state.writeNull()
    state.frames[index].count += 1
  }

  mutating func encode(_ value: Bool) throws {
    guard let index = begin() else { return }
    state.writeBool(value)
    state.frames[index].count += 1
  }

  mutating func encode(_ value: String) throws {
    guard let index = begin() else { return }
    state.writeString(value)
    state.frames[index].count += 1
  }

  mutating func encode(_ value: Double) throws {
    let mark = state.mark()
    guard let index = begin() else { return }
    do {
      try state.writeFloat(value, step: .index(state.frames[index].count))
    } catch {
      state.restore(mark)
      throw error
    }
    state.frames[index].count += 1
  }

  mutating func encode(_ value: Float) throws {
    let mark = state.mark()
    guard let index = begin() else { return }
    do {
      try state.writeFloat(value, step: .index(state.frames[index].count))
    } catch {
      state.restore(mark)
      throw error
    }
    state.frames[index].count += 1
  }

  mutating func encode(_ value: Int) throws {
    guard let index = begin() else { return }
    state.writeInteger(value)
    state.frames[index].count += 1
  }

  mutating func encode(_ value: Int8) throws {
    guard let index = begin() else { return }
    state.writeInteger(value)
    state.frames[index].count += 1
  }

  mutating func encode(_ value: Int16) throws {
    guard let index = begin() else { return }
    state.writeInteger(value)
    state.frames[index].count += 1
  }

  mutating func encode(_ value: Int32) throws {
    guard let index = begin() else { return }
    state.writeInteger(value)
    state.frames[index].count += 1
  }

  mutating func encode(_ value: Int64) throws {
    guard let index = begin() else { return }
    state.writeInteger(value)
    state.frames[index].count += 1
  }

  mutating func encode(_ value: Int128) throws {
    guard let index = begin() else { return }
    state.writeInteger(value)
    state.frames[index].count += 1
  }

  mutating func encode(_ value: UInt) throws {
    guard let index = begin() else { return }
    state.writeInteger(value)
    state.frames[index].count += 1
  }

  mutating func encode(_ value: UInt8) throws {
    guard let index = begin() else { return }
    state.writeInteger(value)
    state.frames[index].count += 1
  }

  mutating func encode(_ value: UInt16) throws {
    guard let index = begin() else { return }
    state.writeInteger(value)
    state.frames[index].count += 1
  }

  mutating func encode(_ value: UInt32) throws {
    guard let index = begin() else { return }
    state.writeInteger(value)
    state.frames[index].count += 1
  }

  mutating func encode(_ value: UInt64) throws {
    guard let index = begin() else { return }
    state.writeInteger(value)
    state.frames[index].count += 1
  }

  mutating func encode(_ value: UInt128) throws {
    guard let index = begin() else { return }
    state.writeInteger(value)
    state.frames[index].count += 1
  }

  mutating func encode<T: Encodable>(_ value: T) throws {
    let mark = state.mark()
    guard let index = begin() else { return }
    do {
      try state.encodeValue(value, index: state.frames[index].count)
    } catch {
      state.restore(mark)
      throw error
    }
    guard !state.needsFoundation else { return }
    state.frames[index].count += 1
  }

  mutating func nestedContainer<NestedKey: CodingKey>(
    keyedBy keyType: NestedKey.Type
  ) -> KeyedEncodingContainer<NestedKey> {
    KeyedEncodingContainer(
      JSONKeyedEncodingContainer<NestedKey>(state: state, frame: nested(isObject: true)))
  }

  mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
    JSONUnkeyedEncodingContainer(state: state, frame: nested(isObject: false))
  }

  mutating func superEncoder() -> any Encoder { state.superEncoder() }

  /// Ready to write the next element: its frame, after the separator.
  private func begin() -> Int? {
    guard let index = state.activate(frame) else { return nil }
    if state.frames[index].count > 0 { state.output.append(UInt8(ascii: ",")) }
    return index
  }

  private func nested(isObject: Bool) -> JSONEncodingState.FrameReference {
    guard let index = begin() else { return .invalid }
    let position = state.frames[index].count
    state.frames[index].count += 1
    return state.openFrame(
      isObject: isObject, parentMember: -1,
      step: JSONEncodingState.PathStep(place: position, isKey: false))
  }
}
