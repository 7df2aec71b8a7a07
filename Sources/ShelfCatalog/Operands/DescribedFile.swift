public import ShelfCore
public import ShelfFacts
import ShelfWorkers

#if canImport(Glibc)
  import Glibc
#endif

/// What `info` and `show` describe for a file operand: the catalogue's entry when it is
/// current, else the facts read live and shaped like an entry (a backup entry's is
/// `BackupEntryResolver.entry(describing:)`).
extension CatalogEntry {
  /// The entry for the file at `path`: the catalogue's (`catalogued`) when `store` holds it
  /// (by its path or its resolved path) unchanged in size and time and read by this
  /// extractor version, else its facts read now in one of `extractors`' workers. A file that
  /// reports a size of 0 but has content (those of /proc and /sys) is described by its copy
  /// in `temporaryFolder`; one with no content at all is refused. The entry is named by the
  /// absolute path.
  public static func describing(
    file path: RawPath, store: CatalogStore?, extractors: ExtractorPool? = nil, temporaryFolder: RawPath
  ) throws -> (entry: CatalogEntry, catalogued: Bool) {
    let file = try RegularFile(path: path)
    let absolute = path.absolute
    // The catalogue knows files by their resolved path.
    let resolved = (try? TreeWalker.realPath(absolute)) ?? absolute
    guard file.status.size > 0 else {
      // A /proc or /sys file has content all the same: its copy is described.
      guard let copy = try UnsizedFile.spool(file, temporaryFolder: temporaryFolder) else {
        throw FileError(path: path, reason: "file is empty", failure: .badInput)
      }
      var read = try ReadFacts(copy.open(), fileExtension: absolute.lowercasedExtension, in: extractors)
      // The file's own status, but for the size of what it held.
      let size = read.status.size
      read.status = file.status
      read.status.size = size
      return (CatalogEntry(live: absolute, resolved: resolved, read: read, roots: []), false)
    }
    if let store, let entry = (try? store.entry(path: absolute)) ?? (try? store.entry(path: resolved)),
      entry.size == file.status.size, entry.mtimeNanoseconds == file.status.mtimeNanoseconds,
      entry.extractorVersion == MetadataExtractor.version
    {
      var shown = entry
      shown.path = absolute
      return (shown, true)
    }
    let read = try ReadFacts(
      MetadataExtractor.open(path: absolute, followLinks: true), fileExtension: absolute.lowercasedExtension,
      in: extractors)
    let roots = (try? store?.roots()) ?? []
    return (CatalogEntry(live: absolute, resolved: resolved, read: read, roots: roots), false)
  }

  /// The entry for standard input, named `-`: up to `limit` bytes read into a temporary file
  /// in `temporaryFolder` (unlinked at once), its facts read in one of `extractors`' workers.
  public static func describingStandardInput(
    limit: Int64, temporaryFolder: RawPath, extractors: ExtractorPool? = nil
  ) throws -> CatalogEntry {
    let name = RawPath("-")
    let read = try MetadataExtractor.extract(
      stream: STDIN_FILENO, name: name, temporaryFolder: temporaryFolder, limit: limit, in: extractors)
    return CatalogEntry(live: name, resolved: name, read: read, roots: [])
  }
}
