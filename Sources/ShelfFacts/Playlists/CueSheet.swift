public import ShelfCore

/// A time in a CUE sheet: CD frames (75 a second) from the start of its FILE.
///
/// Kept as frames, not seconds, so that track boundaries convert to sample frames exactly:
/// 588 samples per CD frame at 44.1 kHz.
public struct CueTime: Sendable, Hashable, Comparable, CustomStringConvertible {
  /// CD frames per second.
  public static let framesPerSecond = 75
  /// The most minutes a time may have: 6 digits, far beyond any file, and no overflow.
  static let minuteLimit = 999_999

  /// CD frames from the start of the file.
  public var frames: Int

  /// A time of `frames` CD frames.
  public init(frames: Int) { self.frames = frames }

  /// `mm:ss:ff` (minutes of any length, seconds below 60, frames below 75); nil otherwise.
  public init?(_ text: some StringProtocol) {
    let parts = text.split(separator: ":", omittingEmptySubsequences: false)
    guard parts.count == 3,
      parts.allSatisfy({ !$0.isEmpty && $0.count <= 6 && $0.allSatisfy { $0.isASCII && $0.isNumber } }),
      let minutes = Int(parts[0]), let seconds = Int(parts[1]), let frames = Int(parts[2]),
      minutes <= Self.minuteLimit, seconds < 60, frames < Self.framesPerSecond
    else { return nil }
    self.frames = (minutes * 60 + seconds) * Self.framesPerSecond + frames
  }

  /// The time in seconds.
  public var seconds: Double { Double(frames) / Double(Self.framesPerSecond) }

  /// The sample frame at `rate` samples a second this time falls on: `frames × rate / 75`,
  /// exact when 75 divides the rate (44.1, 48, 88.2, 96, 176.4, 192 kHz), rounded down
  /// otherwise. Nil when the rate is not positive or the product overflows.
  public func sampleFrame(rate: Int) -> Int64? {
    guard rate > 0, frames >= 0 else { return nil }
    let (product, overflow) = Int64(frames).multipliedReportingOverflow(by: Int64(rate))
    guard !overflow else { return nil }
    return product / Int64(Self.framesPerSecond)
  }

  /// `mm:ss:ff`, as a CUE sheet writes it.
  public var description: String {
    let minutes = frames / (60 * Self.framesPerSecond)
    let seconds = frames / Self.framesPerSecond % 60
    let rest = frames % Self.framesPerSecond
    func two(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
    return "\(two(minutes)):\(two(seconds)):\(two(rest))"
  }

  public static func < (lhs: CueTime, rhs: CueTime) -> Bool { lhs.frames < rhs.frames }
}

/// A CUE sheet: the tracks of a CD image (or of several files) as spans of audio files, with
/// their CD-TEXT titles and performers.
///
/// A careful parser of the CUE grammar rather than libcue (whose flex/bison parser has had
/// memory-safety bugs, CVE-2023-43641, and prints to stderr): commands in any case, quoted or
/// bare values, CR LF or LF, a byte-order mark, a legacy encoding (decoded by detection), and
/// the real-world forms: EAC's `REM` lines, `INDEX 00` pregaps, several FILEs with a track's
/// `INDEX 00` in one file and its `INDEX 01` in the next. A line that makes no sense is a
/// diagnostic, never a failure of the sheet.
public struct CueSheet: Sendable {
  /// A `REM NAME value` line (`GENRE`, `DATE`, `DISCID`, `COMMENT`, `REPLAYGAIN_ALBUM_GAIN`…).
  public struct Remark: Sendable, Equatable {
    /// The name, upper-cased.
    public var name: String
    /// The rest of the line, unquoted.
    public var value: String
  }

  /// A `FILE "name" TYPE` line: an audio file the tracks that follow lie in.
  public struct File: Sendable, Equatable {
    /// The name as written (decoded).
    public var name: String
    /// `WAVE`, `MP3`, `AIFF`, `BINARY`, `FLAC`…, upper-cased (a hint only: the content decides).
    public var type: String
    /// The file: found by `CueSheet.read` (`location` says how), else the first spelling.
    public var path: RawPath
    /// The spellings to try, in order (see `PlaylistLocation.file`), then the name's last
    /// component in the sheet's folder (sheets name files by their path on the ripping machine).
    public var spellings: [RawPath]
    /// How the file was found; `.notLooked` until `CueSheet.read` or `locateFiles` looks.
    public var location: CueFileLocation
    /// The line of the FILE command.
    public var line: Int
  }

  /// One `TRACK`.
  public struct Track: Sendable, Equatable {
    /// Its number (1–99 on a CD; larger numbers are kept).
    public var number: Int
    /// `AUDIO`, or a data mode (`MODE1/2352`…), upper-cased.
    public var type: String
    /// The track's TITLE.
    public var title: String?
    /// The track's PERFORMER, else the sheet's.
    public var performer: String?
    /// The track's SONGWRITER, else the sheet's.
    public var songwriter: String?
    public var isrc: String?
    /// FLAGS: `DCP`, `4CH`, `PRE`, `SCMS`.
    public var flags: [String]
    /// Its REM lines (`REPLAYGAIN_TRACK_GAIN`…).
    public var remarks: [Remark]
    /// The index into `files` of the file its INDEX 01 lies in.
    public var fileIndex: Int
    /// The file its INDEX 01 lies in (as `files[fileIndex].path`).
    public var file: RawPath
    /// Where it starts: its INDEX 01.
    public var start: CueTime
    /// Where it ends: the next track's INDEX 01 when that lies in the same file, else nil (the
    /// end of the file). Always after `start`. The next track's pregap (INDEX 00) thus plays
    /// at the end of this one, as on a CD played through.
    public var end: CueTime?
    /// Its INDEX 00 (the pregap's start), when it has one, and the index into `files` of the
    /// file it lies in (the previous track's file, in a sheet of one file per track).
    public var pregap: (time: CueTime, fileIndex: Int)?
    /// PREGAP and POSTGAP: silence a CD burner adds, not in the file (not played).
    public var pregapSilence: CueTime?
    public var postgapSilence: CueTime?
    /// The line of the TRACK command.
    public var line: Int

    /// True for an audio track (data tracks are not played).
    public var isAudio: Bool { type == "AUDIO" }

    public static func == (lhs: Track, rhs: Track) -> Bool {
      lhs.number == rhs.number && lhs.type == rhs.type && lhs.title == rhs.title
        && lhs.performer == rhs.performer && lhs.songwriter == rhs.songwriter && lhs.isrc == rhs.isrc
        && lhs.flags == rhs.flags && lhs.remarks == rhs.remarks && lhs.fileIndex == rhs.fileIndex
        && lhs.file == rhs.file && lhs.start == rhs.start && lhs.end == rhs.end
        && lhs.pregap?.time == rhs.pregap?.time && lhs.pregap?.fileIndex == rhs.pregap?.fileIndex
        && lhs.pregapSilence == rhs.pregapSilence && lhs.postgapSilence == rhs.postgapSilence
        && lhs.line == rhs.line
    }
  }

  /// The sheet's path.
  public var path: RawPath
  /// The encoding it was read in.
  public var encoding: TextEncoding
  /// The album's TITLE and PERFORMER, SONGWRITER, CATALOG (the UPC/EAN), CDTEXTFILE.
  public var title: String?
  public var performer: String?
  public var songwriter: String?
  public var catalog: String?
  public var cdTextFile: String?
  /// The REM lines before the first TRACK.
  public var remarks: [Remark] = []
  public var files: [File] = []
  /// The tracks that have a start, in the sheet's order.
  public var tracks: [Track] = []
  /// Lines that were skipped or look wrong, and files found under another name.
  public var diagnostics: [PlaylistDiagnostic] = []

  /// The value of the sheet's `REM name` (any case), e.g. `remark("GENRE")`.
  public func remark(_ name: String) -> String? {
    let upper = name.uppercased()
    return remarks.first { $0.name == upper }?.value
  }

  /// Each track's length in seconds, in `tracks`' order: to its end, or for the last track of
  /// a file to that file's end, from `fileLength` (a file's length in seconds, nil when it
  /// cannot be read). Nil where unknown, or where the file ends before the track starts.
  public func trackDurations(fileLength: (RawPath) -> Double?) -> [Double?] {
    var lengths: [Int: Double?] = [:]
    return tracks.map { track in
      if let end = track.end {
        return Double(end.frames - track.start.frames) / Double(CueTime.framesPerSecond)
      }
      let length: Double?
      if let known = lengths[track.fileIndex] {
        length = known
      } else {
        length = files[track.fileIndex].location == .missing ? nil : fileLength(track.file)
        lengths[track.fileIndex] = length
      }
      guard let length, length.isFinite, length > track.start.seconds else { return nil }
      return length - track.start.seconds
    }
  }

  /// Reads, parses and locates the files of the sheet at `path` (see `locateFiles`).
  public static func read(path: RawPath) throws(PlaylistError) -> CueSheet {
    var sheet = try parse(try PlaylistReading.contents(of: path), path: path)
    sheet.locateFiles()
    return sheet
  }

  /// Finds each FILE that a track lies in (`CueFileLocator`): as written, under another audio
  /// extension, or as the sheet's own name; notes a substitute, warns about a missing file.
  public mutating func locateFiles() {
    let used = Set(tracks.map(\.fileIndex))
    let audioFiles = files.indices.filter { used.contains($0) }
    var locator = CueFileLocator()
    for index in audioFiles {
      let file = files[index]
      let location = locator.locate(file.spellings, sheet: path, soleFile: audioFiles.count == 1)
      files[index].location = location
      switch location {
      case .found(let found, let how):
        files[index].path = found
        if how != .asWritten {
          diagnostics.append(
            PlaylistDiagnostic(
              list: path, line: file.line, entry: RawPath(file.name).escaped,
              message: "not found, playing \(found.lastComponent.escaped) instead", isNote: true))
        }
      case .missing:
        diagnostics.append(
          PlaylistDiagnostic(
            list: path, line: file.line, entry: RawPath(file.name).escaped,
            message: "no such file (nor under another audio extension)"))
      case .notLooked: break
      }
    }
    for index in tracks.indices { tracks[index].file = files[tracks[index].fileIndex].path }
  }
}

/// How a CUE sheet's FILE was found.
public enum CueFileLocation: Sendable, Equatable {
  /// Not looked for yet (`CueSheet.parse` does not touch the file system).
  case notLooked
  /// Found at the path, in the way said.
  case found(RawPath, CueFileSubstitution)
  /// Under no name tried.
  case missing
}

/// Which name a CUE sheet's FILE was found under.
public enum CueFileSubstitution: Sendable, Equatable {
  /// As written (or by its last component, in the sheet's folder).
  case asWritten
  /// The same name with another audio extension (a `.wav` sheet beside its `.flac`).
  case otherExtension
  /// The sheet's own name with an audio extension (`Album.cue` beside `Album.flac`, a sheet
  /// of one FILE that names the ripper's `Range.wav`).
  case sheetName
}
