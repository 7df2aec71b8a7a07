import ShelfCore

/// How `extract` names its outputs below the destination.
public enum CatalogExtractLayout: Sendable {
  /// The path below the entry's root: `DIR/Documents/a.txt`. A backup's entries always go
  /// under a folder named for the backup, `DIR/<Device name> YYYY-MM-DD/DOMAIN/relativePath`,
  /// and when the files come from several other roots, each root's go under its folder's name.
  case tree
  /// Straight into the destination under the file's own name.
  case flat
  /// The parts of a relative path made from the entry (`extract --name TEMPLATE`); each part
  /// is checked (no empty, `.` or `..` part) before use.
  case named(@Sendable (CatalogEntry) -> [[UInt8]])
}

/// Names the outputs of one extraction so that no two collide: the folder of each backup and
/// root, the path below it, parts cut to what a file system takes (255 bytes), and ` (2)`,
/// ` (3)`… before the extension of an output another file of the run already takes.
struct ExtractOutputNames {
  /// The longest file name Linux file systems take, in bytes.
  static let nameLimit = 255

  private let destination: RawPath
  private let layout: CatalogExtractLayout
  /// The folder each root's files go under in the tree layout (none: straight into DIR).
  private let rootFolders: [PathKey: [UInt8]]
  /// The relative paths this run writes.
  private var claimed = Set<PathKey>()

  /// Names for extracting `entries` (of the catalogue's `roots`) into `destination`.
  init(destination: RawPath, layout: CatalogExtractLayout, entries: [CatalogEntry], roots: [CatalogRoot]) {
    self.destination = destination
    self.layout = layout
    guard case .tree = layout else {
      rootFolders = [:]
      return
    }
    var folders = Self.backupLabels(roots)
    var taken = Set(folders.values)
    var seen = Set<RawPath>()
    let plainRoots = entries.compactMap { $0.backup == nil ? $0.root : nil }.filter {
      seen.insert($0).inserted
    }
    // One root's files keep their paths as they are; several roots' each get a folder.
    if plainRoots.count > 1 {
      for root in plainRoots.sorted(by: { $0.bytes.lexicographicallyPrecedes($1.bytes) }) {
        let name = Self.cleanName(root.lastComponent.bytes, fallback: "root")
        let unique = Self.unique(name) { !taken.contains($0) }
        taken.insert(unique)
        folders[root] = unique
      }
    }
    rootFolders = Dictionary(uniqueKeysWithValues: folders.map { (PathKey($0.key.bytes), $0.value) })
  }

  /// The folder name of every backup root: `<Device name> YYYY-MM-DD` (the backup's local
  /// date), made unique with ` (2)`… in order of date, then path, over all the catalogue's
  /// backups, so that a backup's folder is the same whichever of its files a query picks.
  static func backupLabels(_ roots: [CatalogRoot]) -> [RawPath: [UInt8]] {
    let backups = roots.compactMap { root in root.backup.map { (root.path, $0) } }.sorted { a, b in
      let (left, right) = (a.1.date ?? "", b.1.date ?? "")
      return left != right ? left < right : a.0.bytes.lexicographicallyPrecedes(b.0.bytes)
    }
    var labels: [RawPath: [UInt8]] = [:]
    var taken = Set<[UInt8]>()
    for (path, facts) in backups {
      var label = facts.deviceName ?? "Unknown device"
      if let date = facts.date.flatMap(Timestamp.init(parsing:))?.local {
        label += " " + String(date.rfc3339.prefix(10))
      }
      let unique = unique(cleanName(Array(label.utf8), fallback: "Unknown device")) { !taken.contains($0) }
      taken.insert(unique)
      labels[path] = unique
    }
    return labels
  }

  /// The output of `entry`, claimed for this run: refused when a part is unsafe.
  mutating func output(for entry: CatalogEntry) throws(CatalogExtractError) -> RawPath {
    var parts: [[UInt8]]
    switch layout {
    case .tree:
      parts = try Self.safeComponents(of: entry)
      if let root = entry.root, let folder = rootFolders[PathKey(root.bytes)] {
        parts.insert(folder, at: 0)
      } else if entry.backup != nil {
        parts.insert(Self.cleanName(entry.root?.lastComponent.bytes ?? [], fallback: "backup"), at: 0)
      }
    case .flat:
      parts = [try Self.safeComponents(of: entry).last!]
    case .named(let name):
      parts = name(entry)
      if parts.last?.isEmpty ?? true {
        throw CatalogExtractError(path: entry.path, reason: .unsafePath("the template gives it no file name"))
      }
      try Self.check(parts, of: entry)
    }
    parts = parts.map { Self.cut($0, to: Self.nameLimit) }
    // The relative path made once; only a name another output took is made unique.
    var prefix: [UInt8] = []
    prefix.reserveCapacity(parts.reduce(0) { $0 + $1.count + 1 })
    for part in parts.dropLast() {
      prefix += part
      prefix.append(UInt8(ascii: "/"))
    }
    var relative = prefix + parts.last!
    if !claimed.insert(PathKey(relative)).inserted {
      let name = Self.unique(parts.last!) { !claimed.contains(PathKey(prefix + $0)) }
      relative = prefix + name
      claimed.insert(PathKey(relative))
    }
    return destination.appending(RawPath(bytes: relative))
  }

  /// The parts of an entry's path below its root, each checked: none empty, `.` or `..`,
  /// none holding a NUL byte.
  static func safeComponents(of entry: CatalogEntry) throws(CatalogExtractError) -> [[UInt8]] {
    let slash = UInt8(ascii: "/")
    let path = entry.path.bytes
    guard let root = entry.root, path.count > root.bytes.count, path[root.bytes.count] == slash,
      path.starts(with: root.bytes)
    else {
      throw CatalogExtractError(path: entry.path, reason: .unsafePath("not below its root"))
    }
    let relative = entry.path.bytes.dropFirst(root.bytes.count + 1)
    let parts = relative.split(separator: slash, omittingEmptySubsequences: false).map(Array.init)
    try check(parts, of: entry)
    return parts
  }

  /// Refuses parts that would leave the destination or name nothing.
  private static func check(_ parts: [[UInt8]], of entry: CatalogEntry) throws(CatalogExtractError) {
    guard !parts.isEmpty else {
      throw CatalogExtractError(path: entry.path, reason: .unsafePath("empty name"))
    }
    for part in parts {
      if part.isEmpty {
        throw CatalogExtractError(path: entry.path, reason: .unsafePath("empty or absolute part"))
      }
      if part == [0x2E] || part == [0x2E, 0x2E] {
        throw CatalogExtractError(
          path: entry.path, reason: .unsafePath("'\(String(decoding: part, as: UTF8.self))' part"))
      }
      if part.contains(0) {
        throw CatalogExtractError(path: entry.path, reason: .unsafePath("NUL byte"))
      }
    }
  }

  /// A name for a folder of its own from a device or folder name: `/` and NUL as `_`, a
  /// name that is empty, `.` or `..` as `fallback`, cut to the name limit.
  static func cleanName(_ name: [UInt8], fallback: String) -> [UInt8] {
    let cleaned = name.map { $0 == UInt8(ascii: "/") || $0 == 0 ? UInt8(ascii: "_") : $0 }
    if cleaned.isEmpty || cleaned == [0x2E] || cleaned == [0x2E, 0x2E] { return Array(fallback.utf8) }
    return cut(cleaned, to: nameLimit)
  }

  /// `name`, or `stem (2).ext`, `stem (3).ext`… (cut to the name limit) until `isFree` takes it.
  static func unique(_ name: [UInt8], isFree: ([UInt8]) -> Bool) -> [UInt8] {
    if isFree(name) { return name }
    var number = 2
    while true {
      let candidate = cut(name, to: nameLimit, adding: Array(" (\(number))".utf8))
      if isFree(candidate) { return candidate }
      number += 1
    }
  }

  /// `name` with `suffix` before its extension, the stem shortened (never inside a UTF-8
  /// character) so that the whole fits in `limit` bytes. An extension longer than 32 bytes
  /// counts as part of the stem.
  static func cut(_ name: [UInt8], to limit: Int, adding suffix: [UInt8] = []) -> [UInt8] {
    if suffix.isEmpty && name.count <= limit { return name }
    var dot = name.lastIndex(of: UInt8(ascii: ".")).flatMap { $0 > 0 ? $0 : nil } ?? name.count
    if name.count - dot > 32 { dot = name.count }
    var stem = Array(name[..<dot])
    let tail = suffix + name[dot...]
    let room = max(1, limit - tail.count)
    if stem.count > room {
      var end = room
      // Back off to the start of a character: continuation bytes are 10xxxxxx.
      while end > 0 && stem[end] & 0xC0 == 0x80 { end -= 1 }
      stem = Array(stem[..<end])
    }
    return Array((stem + tail).prefix(limit))
  }
}
