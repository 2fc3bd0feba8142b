// A test imports `KeepsakeTesting` alone and gets what it needs to write one: `@Shared` and the
// keys, reducers and effects (`TestStore` asserts on them), and the fault seam the in-memory
// file system shares with test doubles.
@_exported import FaultInjection
@_exported import Keepsake
@_exported import KeepsakeStore
