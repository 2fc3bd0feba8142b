/// A keyed container writing `"key":value` members into its frame; sorted when it closes.
struct JSONKeyedEncodingContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
  let state: JSONEncodingState
  let frame: JSONEncodingState.FrameReference

  var codingPath: [any CodingKey] { state.containerPath(frame) }

  mutating func encodeNil(forKey key: Key) throws {
    guard let index = state.activate(frame) else { return }
    let member = state.beginMember(in: index, key: key)
    state.writeNull()
    state.endMember(member, in: index)
  }

  mutating func encode(_ value: Bool, forKey key: Key) throws {
    guard let index = state.activate(frame) else { return }
    let member = state.beginMember(in: index, key: key)
    state.writeBool(value)
    state.endMember(member, in: index)
  }

  mutating func encode(_ value: String, forKey key: Key) throws {
    guard let index = state.activate(frame) else { return }
    let member = state.beginMember(in: index, key: key)
    state.writeString(value)
    state.endMember(member, in: index)
  }

  mutating func encode(_ value: Double, forKey key: Key) throws {
    guard let index = state.activate(frame) else { return }
    let mark = state.mark()
    let member = state.beginMember(in: index, key: key)
    do {
      try state.writeFloat(value, step: .key(key))
    } catch {
      state.restore(mark)
      throw error
    }
    state.endMember(member, in: index)
  }

  mutating func encode(_ value: Float, forKey key: Key) throws {
    guard let index = state.activate(frame) else { return }
    let mark = state.mark()
    let member = state.beginMember(in: index, key: key)
    do {
      try state.writeFloat(value, step: .key(key))
    } catch {
      state.restore(mark)
      throw error
    }
    state.endMember(member, in: index)
  }

  mutating func encode(_ value: Int, forKey key: Key) throws {
    guard let index = state.activate(frame) else { return }
    let member = state.beginMember(in: index, key: key)
    state.writeInteger(value)
    state.endMember(member, in: index)
  }

  mutating func encode(_ value: Int8, forKey key: Key) throws {
    guard let index = state.activate(frame) else { return }
    let member = state.beginMember(in: index, key: key)
    state.writeInteger(value)
    state.endMember(member, in: index)
  }

  mutating func encode(_ value: Int16, forKey key: Key) throws {
    guard let index = state.activate(frame) else { return }
    let member = state.beginMember(in: index, key: key)
    state.writeInteger(value)
    state.endMember(member, in: index)
  }

  mutating func encode(_ value: Int32, forKey key: Key) throws {
    guard let index = state.activate(frame) else { return }
    let member = state.beginMember(in: index, key: key)
    state.writeInteger(value)
    state.endMember(member, in: index)
  }

  mutating func encode(_ value: Int64, forKey key: Key) throws {
    guard let index = state.activate(frame) else { return }
    let member = state.beginMember(in: index, key: key)
    state.writeInteger(value)
    state.endMember(member, in: index)
  }

  mutating func encode(_ value: Int128, forKey key: Key) throws {
    guard let index = state.activate(frame) else { return }
    let member = state.beginMember(in: index, key: key)
    state.writeInteger(value)
    state.endMember(member, in: index)
  }

  mutating func encode(_ value: UInt, forKey key: Key) throws {
    guard let index = state.activate(frame) else { return }
    let member = state.beginMember(in: index, key: key)
    state.writeInteger(value)
    state.endMember(member, in: index)
  }

  mutating func encode(_ value: UInt8, forKey key: Key) throws {
    guard let index = state.activate(frame) else { return }
    let member = state.beginMember(in: index, key: key)
    state.writeInteger(value)
    state.endMember(member, in: index)
  }

  mutating func encode(_ value: UInt16, forKey key: Key) throws {
    guard let index = state.activate(frame) else { return }
    let member = state.beginMember(in: index, key: key)
    state.writeInteger(value)
    state.endMember(member, in: index)
  }

  mutating func encode(_ value: UInt32, forKey key: Key) throws {
    guard let index = state.activate(frame) else { return }
    let member = state.beginMember(in: index, key: key)
    state.writeInteger(value)
    state.endMember(member, in: index)
  }

  mutating func encode(_ value: UInt64, forKey key: Key) throws {
    guard let index = state.activate(frame) else { return }
    let member = state.beginMember(in: index, key: key)
    state.writeInteger(value)
    state.endMember(member, in: index)
  }

  mutating func encode(_ value: UInt128, forKey key: Key) throws {
    guard let index = state.activate(frame) else { return }
    let member = state.beginMember(in: index, key: key)
    state.writeInteger(value)
    state.endMember(member, in: index)
  }

  mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
    guard let index = state.activate(frame) else { return }
    let mark = state.mark()
    let member = state.beginMember(in: index, key: key)
    do {
      try state.encodeValue(value, key: key)
    } catch {
      state.restore(mark)
      throw error
    }
    guard !state.needsFoundation else { return }
    state.endMember(member, in: index)
  }

  mutating func nestedContainer<NestedKey: CodingKey>(
    keyedBy keyType: NestedKey.Type, forKey key: Key
  ) -> KeyedEncodingContainer<NestedKey> {
    KeyedEncodingContainer(
      JSONKeyedEncodingContainer<NestedKey>(state: state, frame: nested(isObject: true, key)))
  }

  mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
    JSONUnkeyedEncodingContainer(state: state, frame: nested(isObject: false, key))
  }

  mutating func superEncoder() -> any Encoder { state.superEncoder() }

  mutating func superEncoder(forKey key: Key) -> any Encoder { state.superEncoder() }

  private func nested(isObject: Bool, _ key: Key) -> JSONEncodingState.FrameReference {
    guard let index = state.activate(frame) else { return .invalid }
    var member = state.beginMember(in: index, key: key)
    member.isContainer = true
    state.members.append(member)
    state.frames[index].count += 1
    return state.openFrame(
      isObject: isObject, parentMember: state.members.count - 1, step: state.frameStep(key))
  }
}
