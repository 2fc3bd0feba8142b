import Foundation

/// The on-disk states a power cut at one point of a ``DiskHistory`` may leave, under a
/// ``PersistenceModel``.
///
/// A state is one choice of which unflushed metadata operations persisted (any subset under
/// POSIX, a prefix of the journal under ext4) and, for every file still named, which version of
/// its unflushed data did. The choices multiply, so at most ``cap`` states are made per cut:
/// all of them when there are few enough (always the case for a correct writer: a handful per
/// save), else the extremes, every single choice varied alone, and seeded random ones.
struct CrashStates {
  let history: DiskHistory
  let model: PersistenceModel
  /// The most states made for one cut.
  let cap: Int

  /// The states of one cut.
  struct Cut {
    var images: [DiskImage]
    /// Whether there were more combinations than ``CrashStates/cap``.
    var capped: Bool
  }

  private typealias Operation = DiskHistory.Operation

  /// The states a cut just before `operations[cut]` may leave (after them all, for the count).
  func states(at cut: Int, random: inout SeededGenerator) -> Cut {
    let operations = Array(history.operations[..<cut])
    // NB: names outside the root (a broken writer's temporary file in /tmp) change nothing
    // that is materialised, and would only multiply the choices.
    let metadata = operations.indices.filter {
      operations[$0].folders != nil && operations[$0].isUnder(history.root)
    }
    let durable = metadata.map { isDurable($0, in: operations) }
    var capped = false

    // Which metadata operations persisted, as one flag per entry of `metadata`.
    var choices: [[Bool]] = []
    switch model {
    case .weakestPOSIX:
      let free = durable.indices.filter { !durable[$0] }
      // NB: an eighth of the cap, so every choice of names still gets several choices of data.
      let picked = Self.combinations(
        Array(repeating: 2, count: free.count), cap: max(1, cap / 8), random: &random)
      capped = capped || picked.capped
      for pick in picked.choices {
        var persisted = durable
        for (slot, index) in free.enumerated() where pick[slot] == 1 { persisted[index] = true }
        choices.append(persisted)
      }
    case .ext4Ordered:
      // NB: an fsync commits the whole journal, so the durable operations are a prefix.
      let kept = durable.prefix { $0 }.count
      for length in kept...metadata.count {
        choices.append(metadata.indices.map { $0 < length })
      }
    }
    if choices.count > cap {
      capped = true
      choices = Array(choices.suffix(cap))
    }

    let perChoice = max(1, cap / max(1, choices.count))
    var images: [DiskImage] = []
    var seen: Set<DiskImage> = []
    for persisted in choices {
      let kept = zip(metadata, persisted).filter(\.1).map(\.0)
      let (files, folders) = names(after: kept, in: operations)
      // Renames that persisted carry the data written before them (ext4's rule).
      var renamed: [Int: Int] = [:]
      for index in kept {
        switch operations[index] {
        case .rename(_, _, let inode):
          renamed[inode] = index
        case .exchange(_, _, let first, let second):
          renamed[first] = index
          renamed[second] = index
        default:
          break
        }
      }
      let entries = files.sorted { $0.key < $1.key }
      let candidates = entries.map { entry in
        versions(of: entry.value, in: operations, renamedAt: renamed[entry.value])
      }
      let picked = Self.combinations(candidates.map(\.count), cap: perChoice, random: &random)
      capped = capped || picked.capped
      for pick in picked.choices {
        var image = DiskImage(folders: folders)
        for (slot, entry) in entries.enumerated() {
          image.files[entry.key] = candidates[slot][pick[slot]]
        }
        if seen.insert(image).inserted { images.append(image) }
      }
    }
    return Cut(images: images, capped: capped)
  }

  /// Whether the metadata operation at `index` is durable by the end of `operations`.
  private func isDurable(_ index: Int, in operations: [Operation]) -> Bool {
    let later = operations[(index + 1)...]
    switch model {
    case .weakestPOSIX:
      let folders = operations[index].folders ?? []
      return folders.allSatisfy { folder in later.contains(.flushFolder(path: folder)) }
    case .ext4Ordered:
      return later.contains {
        if case .syncFile = $0 { return true }
        if case .flushFolder = $0 { return true }
        return false
      }
    }
  }

  /// The files (relative path to inode) and folders reachable under the root once the initial
  /// names and the metadata operations at `kept` are applied.
  private func names(
    after kept: [Int], in operations: [Operation]
  ) -> (files: [String: Int], folders: Set<String>) {
    let root = history.root
    var names: [String: Int] = [:]
    for (path, inode) in history.initialInodes {
      names[DiskHistory.absolute(path, root: root)] = inode
    }
    var folders: Set<String> = [root]
    for folder in history.initial.folders {
      folders.insert(DiskHistory.absolute(folder, root: root))
    }
    for index in kept {
      switch operations[index] {
      case .link(let path, let inode): names[path] = inode
      case .mkdir(let path): folders.insert(path)
      case .rename(let from, let to, let inode):
        names[from] = nil
        names[to] = inode
      case .exchange(let first, let second, let firstInode, let secondInode):
        names[first] = secondInode
        names[second] = firstInode
      case .unlink(let path): names[path] = nil
      default: break
      }
    }
    // A file or folder is there only if every folder above it, up to the root, is.
    func reachable(_ path: String) -> Bool {
      var folder = DiskHistory.Operation.parent(path)
      while folder != root {
        guard folders.contains(folder), folder.count > root.count else { return false }
        folder = DiskHistory.Operation.parent(folder)
      }
      return true
    }
    var files: [String: Int] = [:]
    for (path, inode) in names where reachable(path) {
      if let relative = history.relative(path) { files[relative] = inode }
    }
    var relativeFolders: Set<String> = []
    for folder in folders where folder != root && reachable(folder) {
      if let relative = history.relative(folder) { relativeFolders.insert(relative) }
    }
    return (files, relativeFolders)
  }

  /// Every content `inode` may hold after the cut, the flushed one first.
  private func versions(
    of inode: Int, in operations: [Operation], renamedAt rename: Int?
  ) -> [Data] {
    var barrier = operations.lastIndex(of: .syncFile(inode: inode)) ?? -1
    if model == .ext4Ordered, let rename { barrier = max(barrier, rename) }
    let initial = history.initialInodes.first { $0.value == inode }.flatMap {
      history.initial.files[$0.key]
    }
    var content = initial ?? Data()
    var tail: [Operation] = []
    for (index, operation) in operations.enumerated() where operation.dataInode == inode {
      if index < barrier {
        content = Self.apply(operation, to: content)
      } else {
        tail.append(operation)
      }
    }
    var versions = [content]
    for operation in tail {
      if case .write(_, let offset, let bytes) = operation {
        switch model {
        case .weakestPOSIX:
          if bytes.count > 1 {
            versions.append(
              Self.apply(
                .write(inode: inode, offset: offset, bytes: bytes.prefix(bytes.count / 2)),
                to: content))
          }
          versions.append(
            Self.apply(
              .write(inode: inode, offset: offset, bytes: Data(count: bytes.count)), to: content))
        case .ext4Ordered:
          if bytes.count > 4096 {
            versions.append(
              Self.apply(
                .write(inode: inode, offset: offset, bytes: bytes.prefix(4096)), to: content))
          }
        }
      }
      content = Self.apply(operation, to: content)
      versions.append(content)
    }
    var seen: Set<Data> = []
    return versions.filter { seen.insert($0).inserted }
  }

  private static func apply(_ operation: Operation, to content: Data) -> Data {
    switch operation {
    case .write(_, let offset, let bytes):
      var content = content
      if content.count < offset + bytes.count {
        content.append(Data(count: offset + bytes.count - content.count))
      }
      content.replaceSubrange(offset..<(offset + bytes.count), with: bytes)
      return content
    case .truncate:
      return Data()
    default:
      return content
    }
  }

  /// Up to `cap` picks of one index per dimension (`counts[d]` values each): every combination
  /// when there are at most `cap`, else the extremes, each dimension varied alone against the
  /// others' first and last values, and seeded random picks.
  static func combinations(
    _ counts: [Int], cap: Int, random: inout SeededGenerator
  ) -> (choices: [[Int]], capped: Bool) {
    var total = 1
    for count in counts {
      total = total.multipliedReportingOverflow(by: max(1, count)).partialValue
      if total > cap || total <= 0 { break }
    }
    if total > 0 && total <= cap {
      var choices: [[Int]] = []
      var pick = Array(repeating: 0, count: counts.count)
      while true {
        choices.append(pick)
        var dimension = counts.count - 1
        while dimension >= 0 {
          pick[dimension] += 1
          if pick[dimension] < counts[dimension] { break }
          pick[dimension] = 0
          dimension -= 1
        }
        if dimension < 0 { return (choices, false) }
      }
    }
    var choices: [[Int]] = []
    var seen: Set<[Int]> = []
    func add(_ pick: [Int]) {
      if choices.count < cap, seen.insert(pick).inserted { choices.append(pick) }
    }
    let first = Array(repeating: 0, count: counts.count)
    let last = counts.map { max(0, $0 - 1) }
    add(first)
    add(last)
    for dimension in counts.indices {
      for value in 0..<counts[dimension] {
        var low = first
        low[dimension] = value
        add(low)
        var high = last
        high[dimension] = value
        add(high)
      }
    }
    var attempts = 0
    while choices.count < cap && attempts < cap * 4 {
      attempts += 1
      add(counts.map { Int.random(in: 0..<max(1, $0), using: &random) })
    }
    return (choices, true)
  }
}
