import DraftsFeature
import Foundation
import Keepsake

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

// The `drafts` program: a thin shell around `DraftsCommand`, which does the work.
// Ctrl-C or `kill` lets a command's transaction end and writes what is pending before the program
// ends by the signal.
StorageContext.flushOnTermination()
do {
  // NB: from the raw `argv` and environment: a path that is not valid UTF-8 is refused, never
  // turned into a look-alike name that opens (or creates) another file (see `CommandLine.exactArguments()`).
  var arguments: [String]
  var environment = ProcessInfo.processInfo.environment
  do {
    arguments = try CommandLine.exactArguments()
    if !arguments.contains("--store") {
      // The first of these that is set names the store; only it must be valid.
      for name in DraftsLocation.variables {
        guard let value = try CommandLine.exactEnvironmentValue(name), !value.isEmpty else {
          continue
        }
        environment[name] = value
        break
      }
    }
  } catch {
    throw DraftsError(error.description)
  }
  // A demo mode that never touches the real drafts: the whole program runs on storage in memory.
  if let flag = arguments.firstIndex(of: "--in-memory-storage") {
    arguments.remove(at: flag)
    StorageContext.setAppDefault(.inMemory(name: "drafts --in-memory-storage"))
  }
  let command = try DraftsCommand.parse(arguments, environment: environment)
  let output = try await command.run()
  if !output.isEmpty { print(output) }
} catch let error as DraftsError {
  FileHandle.standardError.write(Data("drafts: \(error.message)\n".utf8))
  // NB: `_exit`, not `exit`: a change that could not be saved is still pending in memory, and
  // the exit flush (an `atexit` handler) would try to write it again after the message said it
  // was not saved. A failed command has nothing else to write.
  _exit(1)
}
