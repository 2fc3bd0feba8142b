import Foundation
import Keepsake

// A thin shell around `KeepsakeTool`, which does the work; Ctrl-C or `kill` writes what is
// pending before the tool ends by the signal.
StorageContext.flushOnTermination()
do {
  let output = try KeepsakeTool(fileSystem: LocalFileSystem())
    .run(Array(CommandLine.arguments.dropFirst()))
  print(output)
} catch {
  FileHandle.standardError.write(Data("keepsake: \(error.message)\n".utf8))
  exit(1)
}
