import Synchronization

/// A fault seam shared by a test double and the test that drives it.
///
/// A mock calls the seam as the first line of each method; the test decides,
/// per method, whether that call passes, throws, waits, or parks at a gate.
/// Every call is logged before any fault fires, in one order across methods.
///
/// ```swift
/// enum LibraryMethod: String, Hashable, Sendable { case fetchRecentlyPlayed, fetchPage }
///
/// final class MockLibrary: LibraryService {
///   let faults = FaultInjector<LibraryMethod>()
///
///   func fetchRecentlyPlayed() async throws -> [Track] {
///     try faults.throwIfFailing(.fetchRecentlyPlayed)
///     return tracks
///   }
///
///   func fetchPage(_ page: Int) async throws -> [Track] {
///     try await faults.intercept(.fetchPage, arguments: page)
///     return pages[page]
///   }
/// }
///
/// // In the test:
/// library.faults.failingMethods = [.fetchRecentlyPlayed]
/// library.faults.injectedError = CancellationError()
/// library.faults[.fetchPage] = [.pass(times: 1), .fail(.timeout, times: 2), .pass()]
/// #expect(library.faults.callCount(.fetchPage) == 3)
/// ```
///
/// Use one injector per test rather than a shared one, so tests running in
/// parallel cannot see each other's faults. The injector is a class so the mock
/// and the test hold the same instance; its state sits behind a `Mutex`, and
/// every member is `nonisolated`, so it can be used from any actor, the main
/// actor or no actor at all.
public final class FaultInjector<Method: Hashable & Sendable>: Sendable {
  private struct State {
    var failingMethods: Set<Method> = []
    var injectedError: any Error = InjectedFault.connectionLost
    var cursors: [Method: FaultPlan.Cursor] = [:]
    var log: [FaultCall<Method>] = []
  }

  private let state = Mutex(State())
  private let sleep: @Sendable (Duration) async throws -> Void

  /// Creates an injector with no faults, whose delays wait on `clock`.
  ///
  /// Pass a manual clock in tests that exercise ``FaultPlan/Phase/delay(_:times:)``
  /// so they need not wait in real time.
  public init<C: Clock>(clock: C = ContinuousClock()) where C.Duration == Duration {
    sleep = { duration in try await clock.sleep(for: duration) }
  }

  /// Methods that fail on every call with ``injectedError``, whatever their plan.
  public var failingMethods: Set<Method> {
    get { state.withLock { $0.failingMethods } }
    set { state.withLock { $0.failingMethods = newValue } }
  }

  /// The error thrown for ``failingMethods``, and by random phases given no error of their own.
  ///
  /// Defaults to ``InjectedFault/connectionLost``.
  public var injectedError: any Error {
    get { state.withLock { $0.injectedError } }
    set { state.withLock { $0.injectedError = newValue } }
  }

  /// The plan for `method`; setting one starts it from its first phase, `nil` removes it.
  public subscript(method: Method) -> FaultPlan? {
    get { state.withLock { $0.cursors[method]?.plan } }
    set { state.withLock { $0.cursors[method] = newValue.map(FaultPlan.Cursor.init) } }
  }

  /// Makes every call to `method` park at a new, closed gate, and returns that gate.
  ///
  /// This replaces the method's plan. Only ``intercept(_:)`` parks; the
  /// synchronous seam lets calls through.
  public func gate(_ method: Method) -> FaultGate {
    let gate = FaultGate()
    self[method] = [.gate(gate)]
    return gate
  }

  /// Every call so far, in the order the calls reached the seam.
  public var log: [FaultCall<Method>] {
    state.withLock { $0.log }
  }

  /// The calls to `method`, in order.
  public func calls(to method: Method) -> [FaultCall<Method>] {
    state.withLock { $0.log.filter { $0.method == method } }
  }

  /// How many times `method` has been called, whatever happened to the calls.
  public func callCount(_ method: Method) -> Int {
    state.withLock { $0.log.reduce(0) { $1.method == method ? $0 + 1 : $0 } }
  }

  /// Records a call to `method`, then throws if its fault says so.
  ///
  /// This seam never suspends: a delay or gate phase lets the call through
  /// at once. Use ``intercept(_:)`` from async code to have them apply.
  ///
  /// - Throws: The error of the method's current fault, if any.
  public func throwIfFailing(_ method: Method) throws {
    let (sequence, action) = begin(method, arguments: nil)
    try settle(sequence, action, arguments: nil)
  }

  /// Records a call to `method` with its arguments, then throws if its fault says so.
  ///
  /// The arguments are kept in the log and offered to the predicate of a
  /// `FaultPlan.Phase.fail(_:when:times:)` phase.
  ///
  /// - Throws: The error of the method's current fault, if any.
  public func throwIfFailing<Arguments: Sendable>(_ method: Method, arguments: Arguments) throws {
    let (sequence, action) = begin(method, arguments: arguments)
    try settle(sequence, action, arguments: arguments)
  }

  /// Records a call to `method`, applies any delay or gate, then throws if its fault says so.
  ///
  /// This is the async form of ``throwIfFailing(_:)``. It carries another
  /// name because Swift would always pick an `async` overload inside async
  /// code, so `try faults.throwIfFailing(.x)` would stop compiling there.
  ///
  /// - Throws: `CancellationError` if the task is cancelled while delayed or
  ///   parked (the call is then logged as ``FaultCall/Outcome/cancelled``);
  ///   otherwise the error of the method's current fault, if any.
  public func intercept(_ method: Method) async throws {
    let (sequence, action) = begin(method, arguments: nil)
    try await hold(sequence, action)
    try settle(sequence, action, arguments: nil)
  }

  /// Records a call to `method` with its arguments, applies any delay or gate, then throws if its fault says so.
  ///
  /// - Throws: `CancellationError` if the task is cancelled while delayed or
  ///   parked; otherwise the error of the method's current fault, if any.
  public func intercept<Arguments: Sendable>(_ method: Method, arguments: Arguments) async throws {
    let (sequence, action) = begin(method, arguments: arguments)
    try await hold(sequence, action)
    try settle(sequence, action, arguments: arguments)
  }

  /// Logs the call and decides its fault in one critical section, so the log
  /// order and the order in which calls consume their plan always agree.
  private func begin(
    _ method: Method,
    arguments: (any Sendable)?
  ) -> (sequence: Int, action: FaultPlan.Action) {
    state.withLock { state in
      let sequence = state.log.count + 1
      state.log.append(
        FaultCall(sequence: sequence, method: method, arguments: arguments, outcome: .pending))
      if state.failingMethods.contains(method) {
        return (sequence, .fail(state.injectedError))
      }
      let action = state.cursors[method]?.next(defaultError: state.injectedError)
      return (sequence, action ?? .pass)
    }
  }

  private func hold(_ sequence: Int, _ action: FaultPlan.Action) async throws {
    do {
      switch action {
      case .delay(let duration): try await sleep(duration)
      case .gate(let gate): try await gate.pass()
      case .pass, .fail, .failWhen, .random: return
      }
    } catch {
      let cancelled = error is CancellationError || Task.isCancelled
      finish(sequence, cancelled ? .cancelled : .threw(String(describing: error)))
      throw error
    }
  }

  private func settle(
    _ sequence: Int,
    _ action: FaultPlan.Action,
    arguments: (any Sendable)?
  ) throws {
    let error: (any Error)? =
      switch action {
      case .fail(let error): error
      // The predicate is the test's own code, so it runs here rather than
      // under the lock, where calling back into the injector would deadlock.
      case .failWhen(let matches, let error): matches(arguments) ? error : nil
      case .pass, .delay, .gate, .random: nil
      }
    guard let error else {
      finish(sequence, .returned)
      return
    }
    finish(sequence, .threw(String(describing: error)))
    throw error
  }

  private func finish(_ sequence: Int, _ outcome: FaultCall<Method>.Outcome) {
    state.withLock { $0.log[sequence - 1].outcome = outcome }
  }
}
