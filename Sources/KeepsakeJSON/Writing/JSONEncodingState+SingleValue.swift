/// The encoder is its own single-value container, as in Foundation.
extension JSONEncodingState: SingleValueEncodingContainer {
  /// Whether the current value may write itself now (once, and not besides a container).
  private func beginSingleValue() -> Bool {
    guard !needsFoundation, let slot = slots.indices.last else { return false }
    guard !slots[slot].wroteSingleValue, slots[slot].frame == nil else {
      needsFoundation = true
      return false
    }
    slots[slot].wroteSingleValue = true
    return true
  }

  func encodeNil() throws {
    guard beginSingleValue() else { return }
    writeNull()
  }

  func encode(_ value: Bool) throws {
    guard beginSingleValue() else { return }
    writeBool(value)
  }

  func encode(_ value: String) throws {
    guard beginSingleValue() else { return }
    writeString(value)
  }

  func encode(_ value: Double) throws {
    guard beginSingleValue() else { return }
    do {
      try writeFloat(value, step: nil)
    } catch {
      slots[slots.count - 1].wroteSingleValue = false
      throw error
    }
  }

  func encode(_ value: Float) throws {
    guard beginSingleValue() else { return }
    do {
      try writeFloat(value, step: nil)
    } catch {
      slots[slots.count - 1].wroteSingleValue = false
      throw error
    }
  }

  func encode(_ value: Int) throws {
    guard beginSingleValue() else { return }
    writeInteger(value)
  }

  func encode(_ value: Int8) throws {
    guard beginSingleValue() else { return }
    writeInteger(value)
  }

  func encode(_ value: Int16) throws {
    guard beginSingleValue() else { return }
    writeInteger(value)
  }

  func encode(_ value: Int32) throws {
    guard beginSingleValue() else { return }
    writeInteger(value)
  }

  func encode(_ value: Int64) throws {
    guard beginSingleValue() else { return }
    writeInteger(value)
  }

  func encode(_ value: Int128) throws {
    guard beginSingleValue() else { return }
    writeInteger(value)
  }

  func encode(_ value: UInt) throws {
    guard beginSingleValue() else { return }
    writeInteger(value)
  }

  func encode(_ value: UInt8) throws {
    guard beginSingleValue() else { return }
    writeInteger(value)
  }

  func encode(_ value: UInt16) throws {
    guard beginSingleValue() else { return }
    writeInteger(value)
  }

  func encode(_ value: UInt32) throws {
    guard beginSingleValue() else { return }
    writeInteger(value)
  }

  func encode(_ value: UInt64) throws {
    guard beginSingleValue() else { return }
    writeInteger(value)
  }

  func encode(_ value: UInt128) throws {
    guard beginSingleValue() else { return }
    writeInteger(value)
  }

  func encode<T: Encodable>(_ value: T) throws {
    guard beginSingleValue() else { return }
    let mark = mark()
    do {
      try encodeValue(value, index: nil)
    } catch {
      restore(mark)
      slots[slots.count - 1].wroteSingleValue = false
      throw error
    }
  }

  /// `superEncoder()` writes its value when it is released, which one pass cannot follow.
  func superEncoder() -> any Encoder {
    needsFoundation = true
    return self
  }

  /// The coding path of a container's frame: its value's, then the places of the nested
  /// containers down to it, as Foundation gives it.
  ///
  /// NB: Foundation's containers report their whole path, but a value written through a nested
  /// container gets its encoder's path and its own key (`encoder.codingPath + [key]`), without the
  /// nested containers' keys; ``path`` holds that, and a container adds its frames' steps.
  func containerPath(_ frame: FrameReference) -> [any CodingKey] {
    guard frame.index >= 0, frame.index < frames.count, frames[frame.index].serial == frame.serial
    else { return codingPath }
    // NB: a slot's open frames are a chain, each nested in the one below it (using a container
    // closes the frames above it).
    var nested: [any CodingKey] = []
    var index = frame.index
    let slot = frames[index].slot
    while index >= 0, frames[index].slot == slot {
      if let step = frames[index].step { nested.append(step.codingKey(in: frameKeys)) }
      index -= 1
    }
    return path.prefix(frames[frame.index].pathDepth).map { $0.codingKey(in: pathKeys) }
      + nested.reversed()
  }
}

extension JSONEncodingState.FrameReference {
  /// No frame: the container of a value that goes to Foundation; writing to it does nothing.
  static let invalid = JSONEncodingState.FrameReference(index: -1, serial: -1)
}
