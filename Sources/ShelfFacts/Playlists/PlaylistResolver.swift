public import ShelfCore

/// A span of a file a CUE sheet calls a track: what the player plays in place of the whole file.
public struct CueTrackSpan: Sendable, Equatable {
  /// The TRACK number (what `--track N` names in a CUE sheet).
  public var number: Int
  /// INDEX 01, from the file's start.
  public var start: CueTime
  /// The next track's INDEX 01 in the same file; nil: to the end of the file.
  public var end: CueTime?

  /// A span from `start` to `end` (nil: the file's end).
  public init(number: Int, start: CueTime, end: CueTime?) {
    self.number = number
    self.start = start
    self.end = end
  }

  /// The span in sample frames at `rate` (end nil: to the file's end), exact for the rates 75
  /// divides (see `CueTime.sampleFrame(rate:)`); nil when the rate is not positive or a frame
  /// overflows. Consecutive spans of a file share their boundary, so playing them one after
  /// another is gapless.
  public func sampleFrames(rate: Int) -> (start: Int64, end: Int64?)? {
    guard let first = start.sampleFrame(rate: rate) else { return nil }
    guard let end else { return (first, nil) }
    guard let last = end.sampleFrame(rate: rate) else { return nil }
    return (first, last)
  }
}

/// One thing to play that a list named: a file (or a folder), whole or a CUE track's span.
public struct PlaylistItem: Sendable, Equatable {
  /// The audio file (or folder) to play.
  public var path: RawPath
  /// True when the list named a folder: the player walks it as it walks a folder given on the
  /// command line (as mpv and cmus do).
  public var isFolder: Bool
  /// The span of `path` to play when the item is a CUE track; nil for the whole file.
  public var cueTrack: CueTrackSpan?
  /// What to show while it plays, in place of the file's tags: a CUE track's TITLE, or the
  /// display title of an M3U `#EXTINF` or PLS `TitleN` (conventionally "Artist - Title").
  public var title: String?
  /// A CUE track's PERFORMER (the sheet's when it has none).
  public var performer: String?
  /// A CUE sheet's TITLE: the album.
  public var album: String?
  /// The length the list gave, in seconds (a hint for a list's total; the file's own wins).
  public var duration: Double?
  /// The list that named it (the innermost, when lists nest).
  public var list: RawPath
  /// Its entry's position (1 for the first) in the list that was expanded: what `--track N`
  /// counts in a playlist. Every item a nested list gives shares its entry's position.
  public var position: Int

  /// An item of `list`, at `position`.
  public init(
    path: RawPath, isFolder: Bool = false, cueTrack: CueTrackSpan? = nil, title: String? = nil,
    performer: String? = nil, album: String? = nil, duration: Double? = nil, list: RawPath, position: Int
  ) {
    self.path = path
    self.isFolder = isFolder
    self.cueTrack = cueTrack
    self.title = title
    self.performer = performer
    self.album = album
    self.duration = duration
    self.list = list
    self.position = position
  }
}

/// What a list expanded to: the items in play order, and what was skipped or substituted.
public struct PlaylistExpansion: Sendable {
  /// The format of the list expanded.
  public var format: PlaylistFormat
  public var items: [PlaylistItem]
  /// One per skipped entry (URL, missing file, unreadable nested list, a loop, too deep) and
  /// per file found under another name, in the order met: the caller prints them.
  public var diagnostics: [PlaylistDiagnostic]

  /// The index of the item `--track N` starts at: in a CUE sheet the track numbered `number`
  /// (else the first numbered above it), in a playlist the item of its `number`th entry (else
  /// of the first entry after it that gave one). Nil when there is none.
  public func firstItem(track number: Int) -> Int? {
    if format == .cue {
      if let exact = items.firstIndex(where: { $0.cueTrack?.number == number }) { return exact }
      return items.firstIndex { ($0.cueTrack?.number ?? Int.min) > number }
    }
    return items.firstIndex { $0.position >= number }
  }
}

/// Expands an M3U, M3U8, PLS or CUE file into the things to play, following lists inside
/// lists (an M3U naming another M3U or a CUE sheet) as mpv and cmus do.
///
/// Every entry is hostile: a URL or a missing file is warned about once and skipped, a list
/// that cannot be read costs only itself, a list that includes itself (directly or through
/// others) is reported once and not followed again, and nesting stops at `depthLimit`.
public struct PlaylistResolver: Sendable {
  /// How deep lists are followed: the list named is depth 1.
  public var depthLimit: Int

  /// A resolver following lists to `depthLimit` levels (8 by default).
  public init(depthLimit: Int = 8) {
    self.depthLimit = depthLimit
  }

  /// True when `path`'s extension names a list (`.m3u`, `.m3u8`, `.pls`, `.cue`, any case).
  public static func isPlaylist(_ path: RawPath) -> Bool { PlaylistFormat(path: path) != nil }

  /// Expands the list at `path`. Throws when that list itself cannot be read (missing, too
  /// long, not text, not a list by its extension); its entries' problems are diagnostics.
  public func expand(_ path: RawPath) throws(PlaylistError) -> PlaylistExpansion {
    guard let format = PlaylistFormat(path: path) else {
      throw PlaylistError(path: path, reason: "not a playlist (.m3u, .m3u8, .pls) or CUE sheet (.cue)")
    }
    let absolute = path.bytes.first == UInt8(ascii: "/") ? path : path.absolute
    var walk = Walk(depthLimit: depthLimit)
    walk.open.append(Self.identity(of: absolute))
    try walk.expand(absolute, format: format, position: nil)
    return PlaylistExpansion(format: format, items: walk.items, diagnostics: walk.diagnostics)
  }

  /// A list's identity for finding loops: its device and inode (so that two spellings of one
  /// file, or a link to it, are the same list), else its path.
  static func identity(of path: RawPath) -> ListIdentity {
    if let status = try? FileStatus.stat(path) { return .file(device: status.device, inode: status.inode) }
    return .path(path)
  }

  enum ListIdentity: Hashable {
    case file(device: UInt64, inode: UInt64)
    case path(RawPath)
  }

  /// One expansion: the lists open (the chain from the top list down), what was found.
  struct Walk {
    var depthLimit: Int
    var open: [ListIdentity] = []
    var items: [PlaylistItem] = []
    var diagnostics: [PlaylistDiagnostic] = []
    var reportedLoops: Set<ListIdentity> = []
    var reportedDepth = false

    /// Adds the items of the list at `path`; `position` is the top list's entry it was named
    /// by (nil for the top list itself, whose entries give their own positions).
    mutating func expand(_ path: RawPath, format: PlaylistFormat, position: Int?) throws(PlaylistError) {
      let bytes = try PlaylistReading.contents(of: path)
      if format == .cue {
        var sheet = try CueSheet.parse(bytes, path: path)
        sheet.locateFiles()
        diagnostics += sheet.diagnostics
        addTracks(of: sheet, position: position)
        return
      }
      let list = try PlaylistFile.parse(bytes, path: path, format: format)
      diagnostics += list.diagnostics
      for (index, entry) in list.entries.enumerated() {
        add(entry, of: path, position: position ?? index + 1)
      }
    }

    mutating func addTracks(of sheet: CueSheet, position: Int?) {
      for (index, track) in sheet.tracks.enumerated() {
        guard track.isAudio else {
          diagnostics.append(
            PlaylistDiagnostic(
              list: sheet.path, line: track.line, entry: "TRACK \(track.number)",
              message: "a data track (\(track.type)), skipped", isNote: true))
          continue
        }
        // A missing FILE was warned about once, not once per track.
        guard case .found = sheet.files[track.fileIndex].location else { continue }
        items.append(
          PlaylistItem(
            path: track.file,
            cueTrack: CueTrackSpan(number: track.number, start: track.start, end: track.end),
            title: track.title, performer: track.performer, album: sheet.title, list: sheet.path,
            position: position ?? index + 1))
      }
    }

    mutating func add(_ entry: PlaylistEntry, of list: RawPath, position: Int) {
      func warn(_ message: String, note: Bool = false) {
        diagnostics.append(
          PlaylistDiagnostic(
            list: list, line: entry.line, entry: entry.written, message: message, isNote: note))
      }
      guard case .file(let spellings) = entry.location else {
        return warn("a URL (shelf plays files only), skipped")
      }
      var found: (path: RawPath, status: FileStatus)?
      for path in spellings {
        if let status = try? FileStatus.stat(path) {
          found = (path, status)
          break
        }
      }
      guard let (path, status) = found else { return warn("no such file, skipped") }
      if status.type == .directory {
        items.append(PlaylistItem(path: path, isFolder: true, list: list, position: position))
        return
      }
      guard let format = PlaylistFormat(path: path) else {
        items.append(
          PlaylistItem(
            path: path, title: entry.title, duration: entry.duration, list: list, position: position))
        return
      }
      let identity = ListIdentity.file(device: status.device, inode: status.inode)
      if open.contains(identity) {
        if reportedLoops.insert(identity).inserted {
          warn("a list that includes itself (through \(list.lastComponent.escaped)), not followed again")
        }
        return
      }
      guard open.count < depthLimit else {
        if !reportedDepth {
          reportedDepth = true
          warn("lists nested deeper than \(depthLimit), not followed")
        }
        return
      }
      open.append(identity)
      defer { open.removeLast() }
      do {
        try expand(path, format: format, position: position)
      } catch {
        warn(error.reason)
      }
    }
  }
}
