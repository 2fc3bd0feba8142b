import DraftsFeature
import Foundation

// The `drafts` program: a thin shell around `DraftsCommand`, which does the work.
let environment = ProcessInfo.processInfo.environment
do {
  let command = try DraftsCommand.parse(
    Array(CommandLine.arguments.dropFirst()), environment: environment)
  let output = try await command.run()
  if !output.isEmpty { print(output) }
} catch {
  FileHandle.standardError.write(Data("drafts: \(error.message)\n".utf8))
  exit(1)
}
