import Foundation
import KeepsakeStress
import Testing

@Suite("Counter format")
struct CounterFormatTests {
  @Test("A value round-trips through the format and is complete")
  func roundTrip() throws {
    let value = CounterValue.make(writer: "A", counter: 17)
    let data = try CounterFormat.encode(value)
    #expect(try CounterFormat.decode(data) == value)
    #expect(value.isComplete)
    #expect((20_000...100_000).contains(data.count), "a realistic file: \(data.count) bytes")
  }

  @Test("A value mixed from two writes is not complete")
  func mixedValue() {
    var value = CounterValue.make(writer: "A", counter: 17)
    value.payload[17] = CounterValue.make(writer: "B", counter: 17).payload[17]
    #expect(!value.isComplete)
  }
}
