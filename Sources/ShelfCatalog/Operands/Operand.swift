import ShelfAudio
public import ShelfCore
import ShelfFacts

/// What one positional argument of a command that takes files names: a file, a folder, a
/// playlist, an entry of a catalogued iPhone backup, a catalogue query term, standard input,
/// or nothing. `play`, `gain`, `crush`, `info` and `show` read their arguments through this one
/// rule, so that the same argument means the same thing to each (within what each accepts).
public enum Operand: Sendable, Equatable {
  /// A file (anything on disk that is not a folder), as given.
  case file(RawPath)
  /// A folder, as given: its files are what the command works on.
  case folder(RawPath)
  /// An M3U, PLS or CUE file (by its extension), whose entries are what the command works on.
  case playlist(RawPath)
  /// A catalogued path inside an iPhone backup (`BACKUP/DOMAIN/relativePath`): nothing on disk
  /// has that name, its content is read from the backup.
  case backupEntry(RawPath)
  /// A catalogue query term (`kind:audio`, `Bach`).
  case queryTerm(String)
  /// `-`: standard input.
  case standardInput
  /// Nothing by that name, and not one of the above.
  case missing(RawPath)

  /// What a command accepts besides files and folders; an argument that would be of a kind
  /// it does not accept is read as a file (a playlist) or as missing.
  public struct Kinds: OptionSet, Sendable {
    public let rawValue: Int
    public init(rawValue: Int) { self.rawValue = rawValue }
    /// M3U, PLS and CUE files are lists to expand (`play`).
    public static let playlists = Kinds(rawValue: 1)
    /// Catalogued paths inside iPhone backups (`play`, `crush`, `info`, `show`).
    public static let backupEntries = Kinds(rawValue: 2)
    /// Catalogue query terms (`play`, `gain`).
    public static let queryTerms = Kinds(rawValue: 4)
    /// `-` for standard input (`info`).
    public static let standardInput = Kinds(rawValue: 8)
  }

  /// Reads `item` for what it names, in this order: a query term by its form (`root:/x`,
  /// `-kind:image`, `size>1M`: whatever exists by that name, so that a command taking files
  /// and terms alike reads it as every query command does), `-`, what exists on disk (a
  /// folder, a playlist, a file), a backup entry, a query term by elimination (see
  /// `isQueryTerm`), else missing.
  public init(_ item: RawPath, accepting kinds: Kinds) {
    if kinds.contains(.queryTerms), let text = item.utf8String, CatalogQuery.namesField(text) {
      self = .queryTerm(text)
    } else if kinds.contains(.standardInput), item.bytes == [UInt8(ascii: "-")] {
      self = .standardInput
    } else if let status = try? FileStatus.stat(item) {
      if status.type == .directory {
        self = .folder(item)
      } else if kinds.contains(.playlists), PlaylistResolver.isPlaylist(item) {
        self = .playlist(item)
      } else {
        self = .file(item)
      }
    } else if kinds.contains(.backupEntries), Self.namesBackupEntry(item) {
      self = .backupEntry(item)
    } else if kinds.contains(.queryTerms), Self.isQueryTerm(item) {
      self = .queryTerm(item.utf8String ?? "")
    } else {
      self = .missing(item)
    }
  }

  /// True when nothing exists at `path` and a folder above it is an iPhone backup.
  public static func namesBackupEntry(_ path: RawPath) -> Bool {
    guard case .failure(let error) = Result(catching: { () throws(FileError) in try FileStatus.lstat(path) }),
      error.isNoSuchFile
    else { return false }
    return BackupEntryResolver.locate(path) != nil
  }

  /// A missing item that names no field is a query term (`Bach`, `kidn:audio`, which the
  /// query then refuses) unless it looks like a path: a slash or an audio extension make it a
  /// missing file instead. A term that names a field (`root:/x`) is one before this is asked.
  static func isQueryTerm(_ item: RawPath) -> Bool {
    guard let text = item.utf8String, !text.isEmpty, !text.contains("/") else { return false }
    if text.contains(":") { return true }
    return !AudioContainer.audioExtensions.contains(item.lowercasedExtension)
  }
}
