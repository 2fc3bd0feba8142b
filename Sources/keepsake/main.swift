import Foundation
import Keepsake

// A thin shell around `KeepsakeTool`, which does the work; Ctrl-C or `kill` writes what is
// pending before the tool ends by the signal.
StorageContext.flushOnTermination()
do {
  // NB: from the raw `argv`: a path that is not valid UTF-8 is refused, never turned into a
  // look-alike name (see `CommandLine.exactArguments()`).
  let arguments: [String]
  do {
    arguments = try CommandLine.exactArguments()
  } catch {
    throw ToolError(error.description)
  }
  let output = try KeepsakeTool(context: .live).run(arguments)
  print(output.text)
  exit(output.status.rawValue)
} catch let error as ToolError {
  FileHandle.standardError.write(Data("keepsake: \(error.message)\n".utf8))
  exit(error.status.rawValue)
}
