import ShelfAudio
import ShelfCore
import ShelfDatabase
import ShelfFacts
import Testing

@testable import ShelfCatalog

/// The fact table (`FactField.table`) against the facts themselves: every property of
/// `FileFacts` and of the entry is written to a row and read back from it, so that a property
/// added without its row fails here.
@Suite struct FactTableTests {
  /// A row of `CatalogSchema.entryColumns`, as a database would return it for a written entry.
  struct StoredRow: DatabaseRow {
    var values: [DatabaseValue]

    /// The row a catalogue holds for `entry`, selected as `reading` selects it.
    init(_ entry: CatalogEntry, _ reading: CatalogSchema.EntryReading = .full) {
      let written = Dictionary(
        uniqueKeysWithValues: zip(
          CatalogSchema.writtenFileColumns, CatalogSchema.fileValues(entry, rootID: 1, trusted: true)))
      let measured = entry.measuredReplayGain
      values = reading.fields.map { field in
        let name = field.column!.name
        switch name {
        case "r.path": return entry.root.map { .blob($0.bytes) } ?? .null
        case "host": return .from(entry.host)
        case "live_photo": return entry.livePhoto.map { .blob($0.bytes) } ?? .null
        case "measured_track_gain": return .from(measured?.trackGain)
        case "measured_track_peak": return .from(measured?.trackPeak)
        case "measured_album_gain": return .from(measured?.albumGain)
        case "measured_album_peak": return .from(measured?.albumPeak)
        default: return written[name] ?? .null
        }
      }
    }

    func integer(at index: Int) -> Int64? { values[index].integer }
    func integerOrZero(at index: Int) -> Int64 { values[index].integer ?? 0 }
    func real(at index: Int) -> Double? { values[index].real }
    func text(at index: Int) -> String? { values[index].text }
    func blob(at index: Int) -> [UInt8] {
      if case .blob(let bytes) = values[index] { return bytes }
      return []
    }
  }

  /// What the catalogue does not keep, on purpose: the full text (indexed, not stored beside the
  /// facts), how a failure was classified (a stored reason is one of the content), and what
  /// FFmpeg and libsndfile say of a sound beyond its facts (its format's name, whether it is
  /// lossless, a defect found while reading), and a video's tags but its title.
  static let notKept: Set<String> = [
    "facts.searchText", "facts.error.failure", "facts.audio.formatName", "facts.audio.isLossless",
    "facts.audio.defect", "facts.video.formatName", "facts.video.tags.artist",
    "facts.video.tags.album", "facts.video.tags.date", "facts.video.tags.track", "facts.video.tags.genre",
    "facts.video.tags.comment", "facts.video.tags.albumArtist", "facts.video.tags.trackTotal",
    "facts.video.tags.disc", "facts.video.tags.discTotal", "facts.video.tags.replayGain",
    "facts.audio.tags.replayGain.source", "measuredReplayGain.source",
  ]

  /// Entries with every fact the catalogue keeps set, one of each kind.
  static let entries: [CatalogEntry] = {
    func entry(_ kind: FileKind, _ mime: String, _ name: String) -> CatalogEntry {
      var entry = CatalogEntry(
        path: RawPath("/r/DCIM/\(name)"), root: RawPath("/r"), area: .cameraRoll, size: 4242,
        mtimeNanoseconds: 1_700_000_000_123_456_789, ctimeNanoseconds: 1_700_000_001_000_000_000, inode: 77,
        device: 2049,
        facts: FileFacts(
          kind: kind, mime: mime, detectedBy: .contentAndExtension, extensionMismatch: true,
          error: FileFactsError(reason: "cut short", failure: .badInput)),
        backup: BackupFacts(
          domain: "CameraRollDomain", app: "com.example.app", fileID: "ab12", protectionClass: 3,
          mode: 0o100644),
        livePhoto: RawPath("/r/DCIM/IMG_1.MOV"), extractorVersion: 9)
      entry.host = "laptop"
      return entry
    }
    var image = entry(.image, "image/png", "IMG_1.PNG")
    image.image = ImageFacts(
      format: "png", width: 640, height: 480, bitDepth: 16, colorType: .rgba, alpha: true, interlaced: true,
      cgbi: true, frames: 3, loop: 2, chunks: ["IHDR", "acTL", "IDAT", "IEND"])
    image.exif = EXIFFacts(
      taken: "2024-05-01T14:30:00+02:00", camera: "Apple iPhone 12", lens: "back camera", orientation: 6,
      gps: GPSPosition(latitude: 48.8, longitude: -2.3, altitude: 35.5), software: "17.4",
      contentIdentifier: "A1-B2")
    var sound = entry(.audio, "audio/flac", "song.flac")
    sound.audio = AudioFileInfo(
      duration: 185.25, sampleRate: 44100, channels: 2, frames: 8_169_525, formatName: "",
      encodingName: "PCM_16",
      bitsPerSample: 24, isLossless: false,
      tags: AudioTags(
        title: "Song", artist: "Artist", album: "Album", date: "2001-02-03", track: "3/10", genre: "Dance",
        comment: "Hi", albumArtist: "Band", trackTotal: 10, disc: 1, discTotal: 2),
      codec: "flac", bitrate: 900_000, hasArtwork: true, container: "flac")
    sound.audio?.tags.replayGain = ReplayGain(
      trackGain: -6.5, trackPeak: 0.9, albumGain: -7.25, albumPeak: 0.95, source: .tags)
    sound.measuredReplayGain = ReplayGain(
      trackGain: -5.5, trackPeak: 0.8, albumGain: -6.25, albumPeak: 0.85, source: .measured)
    var clip = entry(.video, "video/quicktime", "IMG_1.MOV")
    clip.video = VideoFileInfo(
      duration: 3.5, width: 1920, height: 1080, codec: "hevc", frameRate: 29.97, rotation: 90,
      audioCodec: "aac",
      sampleRate: 48000, channels: 1, bitrate: 8_000_000, taken: "2024-05-01T14:30:00+0200",
      contentIdentifier: "A1-B2", tags: AudioTags(title: "Clip"), container: "mov")
    var text = entry(.text, "text/plain", "notes.txt")
    text.text = TextFacts(
      encoding: .utf16le, bom: true, lineEndings: .crlf, lines: 12, words: 34, chars: 56, firstLine: "Hello")
    var plist = entry(.plist, "application/x-plist", "Info.plist")
    plist.plist = PlistFacts(format: .binary, root: "dictionary", keys: ["CFBundleName", "CFBundleVersion"])
    return [image, sound, clip, text, plist]
  }()

  @Test func everyFactIsWrittenAndReadBack() {
    for entry in Self.entries {
      #expect(CatalogStore.entry(from: StoredRow(entry)) == entry, "\(entry.kind)")
    }
  }

  /// The wire coder is written per type (`FactsWire.swift`), the table per field: what a worker
  /// sends of a file's facts is everything the catalogue stores of them.
  @Test func theWireCarriesWhatTheTableStores() throws {
    for entry in Self.entries {
      var sent = entry
      sent.facts = try WireFormat.decode(FileFacts.self, from: WireFormat.encode(entry.facts))
      #expect(
        CatalogSchema.fileValues(sent, rootID: 1, trusted: true)
          == CatalogSchema.fileValues(entry, rootID: 1, trusted: true), "\(entry.kind)")
    }
  }

  /// A fact the fixtures leave at its blank value would pass the round trip without a row:
  /// every property of every entry must differ from what a blank row reads as.
  @Test func theFixturesSetEveryProperty() {
    for entry in Self.entries {
      var blank = CatalogEntry(blankForRow: ())
      blank.kind = entry.kind
      if entry.image != nil { blank.withImage { _ in } }
      if entry.exif != nil { blank.withEXIF { _ in } }
      if entry.audio != nil {
        blank.withAudio { _ in }
        blank.audio?.tags.replayGain = ReplayGain(source: .tags)
        blank.measuredReplayGain = ReplayGain(source: .measured)
      }
      if entry.video != nil { blank.withVideo { _ in } }
      if let text = entry.text {
        blank.text = TextFacts(
          encoding: text.encoding, bom: false, lineEndings: .noBreak, lines: 0, words: 0, chars: 0,
          firstLine: "")
      }
      if entry.plist != nil { blank.plist = PlistFacts(format: .xml, root: "", keys: []) }
      let blankLeaves = Dictionary(Self.leaves(of: blank), uniquingKeysWith: { first, _ in first })
      // The kind is the fixture's own; a kind's facts another kind has are absent in both.
      let kindGroups: Set<String> = [
        "facts.image", "facts.exif", "facts.audio", "facts.video", "facts.text", "facts.plist",
        "measuredReplayGain",
      ]
      for (path, value) in Self.leaves(of: entry)
      where !Self.notKept.contains(path) && !["facts.kind", "facts.text.encoding"].contains(path)
        && !(value == "nil" && kindGroups.contains(path))
      {
        #expect(
          blankLeaves[path] != value, "\(entry.kind): \(path) is not set by the fixture (or has no row)")
      }
    }
  }

  /// Every stored property under `value`, by its dotted path, described.
  static func leaves(of value: Any, path: String = "") -> [(String, String)] {
    let mirror = Mirror(reflecting: value)
    switch mirror.displayStyle {
    case .optional:
      guard let wrapped = mirror.children.first?.value else { return [(path, "nil")] }
      return leaves(of: wrapped, path: path)
    case .struct:
      return mirror.children.flatMap { child in
        leaves(of: child.value, path: path.isEmpty ? child.label ?? "" : path + "." + (child.label ?? ""))
      }
    default:
      return [(path, String(describing: value))]
    }
  }

  @Test func aListingReadsWhatItShowsAndNothingElse() {
    let sound = Self.entries[1]
    let listed = CatalogStore.entry(from: StoredRow(sound, .listing), .listing)
    #expect(listed.audio?.title == "Song" && listed.audio?.artist == "Artist")
    #expect(listed.audio?.album == nil && listed.root == nil)
    #expect(listed.audio?.duration == 185.25 && listed.audio?.sampleRate == 44100)
  }

  @Test func queryAndTemplateNamesComeFromTheTable() {
    #expect(CatalogQuery.fields["album_artist"]?.column == "f.album_artist")
    #expect(CatalogQuery.fields["type"]?.column == "f.mime")
    #expect(FactField.templateNames.contains("album_artist") && FactField.templateNames.contains("seconds"))
    #expect(!FactField.templateNames.contains("copies"))
    #expect(FactField.isWholeNumber("track") && !FactField.isWholeNumber("lat") && FactField.isDate("taken"))
  }
}
