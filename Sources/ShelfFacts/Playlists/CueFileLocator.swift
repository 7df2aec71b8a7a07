import ShelfCore

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// Finds the audio file a CUE sheet's FILE names. Sheets outlive their audio's format: a rip
/// to WAV later compressed to FLAC keeps `FILE "Album.wav" WAVE`, and rippers name a CD
/// image `Range.wav` whatever it is called afterwards, so cmus, foobar2000 and mpv users
/// expect the same name under another audio extension, then the sheet's own name, to be tried.
struct CueFileLocator {
  /// The extensions tried in place of a missing FILE's, in this order (compared in any case).
  static let alternativeExtensions = [
    "flac", "wav", "ape", "wv", "mp3", "m4a", "ogg", "opus", "aiff", "aif", "tta", "wma", "mpc", "tak",
    "alac",
    "oga", "w64", "rf64", "caf",
  ]
  /// The most folder entries looked through for another extension.
  static let folderEntryLimit = 100_000

  /// The names in each folder looked through, read once: a sheet of many FILEs that are all
  /// missing costs one listing of their folder, not one per FILE.
  private var folders: [RawPath: [[UInt8]]] = [:]

  /// The first of `spellings` that is a file; else the same name with another audio extension
  /// in its folder; else, for a sheet of one FILE (`soleFile`), the sheet's own name with an
  /// audio extension.
  mutating func locate(_ spellings: [RawPath], sheet: RawPath, soleFile: Bool) -> CueFileLocation {
    for path in spellings where Self.isFile(path) { return .found(path, .asWritten) }
    for path in spellings {
      if let found = sameStem(as: path) { return .found(found, .otherExtension) }
    }
    if soleFile, let found = sameStem(as: sheet, excludingItself: true) { return .found(found, .sheetName) }
    return .missing
  }

  /// True when `path` is a file (links followed), not a folder.
  static func isFile(_ path: RawPath) -> Bool {
    guard let status = try? FileStatus.stat(path) else { return false }
    return status.type != .directory
  }

  /// A file in `path`'s folder named like it but with one of `alternativeExtensions` (the
  /// earliest in that list), the extension compared in any case.
  mutating func sameStem(as path: RawPath, excludingItself: Bool = false) -> RawPath? {
    let name = path.lastComponent.bytes
    let stem = name.lastIndex(of: UInt8(ascii: ".")).map { $0 > 0 ? Array(name[..<$0]) : name } ?? name
    guard !stem.isEmpty else { return nil }
    let folder = path.parent
    if folders[folder] == nil { folders[folder] = Self.names(in: folder) }
    var best: (rank: Int, name: [UInt8])?
    for entry in folders[folder] ?? [] {
      guard entry.count > stem.count + 1, entry.starts(with: stem), entry[stem.count] == UInt8(ascii: "."),
        !(excludingItself && entry == name)
      else { continue }
      let ext = String(decoding: entry[(stem.count + 1)...], as: UTF8.self).lowercased()
      guard let rank = Self.alternativeExtensions.firstIndex(of: ext), rank < (best?.rank ?? Int.max) else {
        continue
      }
      if Self.isFile(folder.appending(RawPath(bytes: entry))) { best = (rank, entry) }
    }
    return best.map { folder.appending(RawPath(bytes: $0.name)) }
  }

  /// The names of the entries of `folder` (up to `folderEntryLimit`; none when it cannot be
  /// read).
  static func names(in folder: RawPath) -> [[UInt8]] {
    let descriptor = folder.withCString { open($0, O_RDONLY | O_DIRECTORY | O_CLOEXEC) }
    guard descriptor >= 0 else { return [] }
    defer { close(descriptor) }
    let listing = FolderListing()
    guard (try? listing.read(descriptor, path: folder)) != nil else { return [] }
    var names: [[UInt8]] = []
    listing.forEach { _, name in
      if names.count < folderEntryLimit { names.append(Array(name)) }
    }
    return names
  }
}

/// Reads a list's bytes, bounded by `PlaylistText.sizeLimit`.
enum PlaylistReading {
  /// The whole content of the list at `path`; throws when it is missing, a folder, too long
  /// or unreadable.
  static func contents(of path: RawPath) throws(PlaylistError) -> [UInt8] {
    let file: RegularFile
    do {
      file = try RegularFile(path: path)
    } catch {
      throw PlaylistError(path: path, reason: error.reason, failure: error.failure)
    }
    guard file.status.size <= Int64(PlaylistText.sizeLimit) else {
      throw PlaylistError(path: path, reason: "larger than \(PlaylistText.sizeLimit >> 20) MiB: not a list")
    }
    let bytes: [UInt8]
    do {
      // One byte more than its size: a file that grew past the limit since is refused too.
      bytes = try file.read(count: Int(file.status.size) + 1, at: 0)
    } catch {
      throw PlaylistError(path: path, reason: error.reason, failure: .io)
    }
    guard bytes.count <= PlaylistText.sizeLimit else {
      throw PlaylistError(path: path, reason: "larger than \(PlaylistText.sizeLimit >> 20) MiB: not a list")
    }
    return bytes
  }
}
