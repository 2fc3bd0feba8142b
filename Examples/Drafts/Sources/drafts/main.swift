import DraftsFeature
import Foundation
import Keepsake

// The `drafts` program: a thin shell around `DraftsCommand`, which does the work.
// Ctrl-C or `kill` lets a command's transaction end and writes what is pending before the program
// ends by the signal.
StorageContext.flushOnTermination()
let environment = ProcessInfo.processInfo.environment
var arguments = Array(CommandLine.arguments.dropFirst())
// A demo mode that never touches the real drafts: the whole program runs on storage in memory.
if let flag = arguments.firstIndex(of: "--in-memory-storage") {
  arguments.remove(at: flag)
  StorageContext.setAppDefault(.inMemory(name: "drafts --in-memory-storage"))
}
do {
  let command = try DraftsCommand.parse(arguments, environment: environment)
  let output = try await command.run()
  if !output.isEmpty { print(output) }
} catch {
  FileHandle.standardError.write(Data("drafts: \(error.message)\n".utf8))
  exit(1)
}
