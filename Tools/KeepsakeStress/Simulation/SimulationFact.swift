import Foundation

/// Something a simulation saw happen, in the order it happened: what the checker judges.
///
/// Facts are bytes on the disk and what the app asked and was told, never the library's own
/// decisions: the checker (``PromiseChecker``) reads the bytes with its own decoder and holds
/// them to the promises, without calling into the code it checks.
enum SimulationFact: Sendable {
  /// Who changed a file.
  enum Writer: Sendable, CustomStringConvertible {
    /// A process through Keepsake (its incarnation's name, `p1#2`).
    case keepsake(String)
    /// Another program, with how it wrote.
    case outside(OutsideStyle)

    var description: String {
      switch self {
      case .keepsake(let name): name
      case .outside(let style): "an outside \(style.rawValue) writer"
      }
    }
  }

  /// What kind of copy Keepsake wrote beside a file.
  enum CopyKind: Sendable {
    case conflict
    case quarantine
    /// A change whose save was refused, kept beside the file (`bytes` are the change as the
    /// process would have written it).
    case unsaved
  }

  /// How an item came to be.
  enum Origin: Sendable {
    /// A `withLock` of a process (or a successful `update` body).
    case mutation
    /// Half of a transaction's pair; the other half is `partner`.
    case transaction(partner: String)
  }

  /// Why an item must never be seen on disk.
  enum Forbidden: Sendable, CustomStringConvertible {
    case bodyThrew
    case rolledBack
    case abandoned

    var description: String {
      switch self {
      case .bodyThrew: "added by an update whose body threw"
      case .rolledBack: "of a transaction that was rolled back"
      case .abandoned: "of a transaction its process abandoned (killed or exited inside it)"
      }
    }
  }

  /// The file's bytes changed: its version `number` (`nil` bytes: no file). `basedOn` is the
  /// version the writer last looked at before writing (`nil`: never).
  case version(file: Int, number: Int, bytes: Data?, writer: Writer, basedOn: Int?)
  /// Keepsake wrote a copy beside the file.
  case copy(file: Int, path: String, bytes: Data, writer: String, kind: CopyKind)
  /// A process added an item (in memory).
  case added(item: String, file: Int, by: String, origin: Origin)
  /// A process set a field of an item (in memory) to `value`, over `replacing`, the value its
  /// memory held: a deliberate replacement of that value.
  case fieldSet(value: String, item: String, field: String, replacing: String?, by: String)
  /// Someone deliberately removed an item: from now on it may be there or not.
  case removed(item: String)
  /// An item that must never be seen on disk, from now on and before.
  case forbidden(item: String, Forbidden)
  /// A request of the app came back successful: `items`, its own additions in memory when it
  /// asked, are promised on disk.
  case acknowledged(file: Int, by: String, request: SimulatedRequest, items: [String])
  /// The app was told of a conflict whose other side is kept at `copy` (`nil`: merged).
  case conflictReported(file: Int, by: String, copy: String?)
  /// A process's exit flush is done: its own additions in memory when it began (`items`) must
  /// be on disk unless it reported an error.
  case exitFlushed(file: Int, by: String, items: [String], reportedError: Bool)
  /// Every lane is idle and every timer has fired, with no flush asked for: a process's
  /// automatic saves have had every chance.
  case settled(file: Int, by: String, reportedError: Bool)
  /// Nothing is under way to save `by`'s changes of `file`: no job queued, no timer armed, no
  /// transaction open, and no error reported. Every change it made must be on disk (the rule of
  /// time: a change reaches the disk within the save interval after the jobs before it end).
  case idle(file: Int, by: String)
  /// A live process at the end, after its last flush (or a fresh launch after everything):
  /// what it holds, and the errors it reports.
  case final(file: Int, by: String, memory: [String], saveError: String?, loadError: String?)
  /// The folder at the end, after a fresh launch opened every file.
  case listing([String: Data])
  /// Between a replacement's removal of the file and its rename into place, the file was
  /// written again by a save its app did not ask for (one that did not wait for the
  /// replacement): the rename replaces it. A save the app asked for ends the wait, as promised.
  case gapFilled(file: Int)
  /// The run did not come to rest.
  case unsettled(String)
}
