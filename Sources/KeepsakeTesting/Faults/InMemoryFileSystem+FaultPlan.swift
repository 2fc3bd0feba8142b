import FaultInjection
import Foundation
@_spi(Testing) import Keepsake

extension InMemoryFileSystem {
  /// Fails this disk's primitive operations as fault plans in the mocks' text form say.
  ///
  /// The text form is `FaultPlan.init(parsing:)`'s, so a test scripts storage faults the way
  /// it scripts a service's:
  ///
  /// ```swift
  /// let faults = try disk.injectFaults("write=1*off->throw(diskFull)->off; rename=throw(ioError)")
  /// // ... the second write fails with a full disk, every rename with an I/O error
  /// #expect(faults.callCount(.write) == 3)
  /// ```
  ///
  /// Methods are ``FileOperation`` names (`read`, `write`, `fsync`, `rename`, `remove`,
  /// `createFolder`, `list`, `lock`). Besides the ready-made errors, `throw(...)` takes
  /// `diskFull`, `permissionDenied` and `ioError`; any other error fails the operation with an
  /// I/O error. Delays and gates do not apply (file operations are synchronous). The plans
  /// replace the disk's ``faultHandler``.
  ///
  /// - Returns: The injector, whose log shows every operation the disk was asked for.
  /// - Throws: `FaultPlanParseError` when the text cannot be read; nothing is installed then.
  @discardableResult
  func injectFaults(_ text: String) throws(FaultPlanParseError) -> FaultInjector<
    FileOperation
  > {
    let injector = FaultInjector<FileOperation>()
    try injector.configure(parsing: text, errors: DiskFault.names)
    faultHandler = { operation, path in
      do {
        try injector.throwIfFailing(operation, arguments: path)
        return nil
      } catch let fault as DiskFault {
        return .fail(fault.reason)
      } catch {
        return .fail(.ioError)
      }
    }
    return injector
  }
}

/// A disk failure named in a fault plan's text.
struct DiskFault: Error {
  let reason: FileSystemError.Reason

  static let names: [String: any Error] = [
    "diskFull": DiskFault(reason: .diskFull),
    "permissionDenied": DiskFault(reason: .permissionDenied),
    "ioError": DiskFault(reason: .ioError),
  ]
}
