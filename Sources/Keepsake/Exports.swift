// NB: `JSONValue`, which JSON-level migration steps edit, lives with the one JSON reader and
// writer in KeepsakeJSON; re-exported so `import Keepsake` is all an app writes.
@_exported import KeepsakeJSON
