import Testing

@testable import KeepsakeTesting

@Suite("Runnable time, what a test's timeout counts")
struct RunnableTimeTests {
  @Test("Slices that took their time count whole, and the time is up at the total")
  func countsOnTime() {
    var time = RunnableTime(.seconds(1))
    #expect(time.slice == .milliseconds(50))
    for _ in 0..<19 { time.count(.milliseconds(50)) }
    #expect(!time.isUp)
    time.count(.milliseconds(50))
    #expect(time.isUp)
  }

  @Test("A slice the machine stalled for seconds counts only a little more than its length")
  func stalledSliceCountsLittle() {
    var time = RunnableTime(.seconds(1))
    time.count(.seconds(48))
    #expect(time.counted == .milliseconds(100))
    #expect(!time.isUp)
  }

  @Test("A short timeout sleeps in slices of a tenth of it, never of nothing")
  func shortTimeouts() {
    #expect(RunnableTime(.milliseconds(10)).slice == .milliseconds(1))
    #expect(RunnableTime(.zero).slice == .milliseconds(1))
    #expect(RunnableTime(.zero).isUp)
  }

}
