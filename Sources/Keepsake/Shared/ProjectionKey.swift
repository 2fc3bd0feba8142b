/// The lane of every projection's reference, which never uses it: a projection's work is done
/// by its parent's reference.
let projectionLane: any PersistenceLane = DispatchLane(label: "keepsake.projection")

/// The key of a projection's reference: its parent's key stores the value.
struct ProjectionKey<Value: Sendable>: SharedKey {
  var id: SharedKeyID { SharedKeyID(kind: "projection", name: "") }
  var saveTiming: SaveTiming { .never }
  func load(in context: StorageContext) throws -> Value? { nil }
  func save(_ value: Value, in context: StorageContext) throws {}
}
