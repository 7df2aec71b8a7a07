public import ShelfAudio
public import ShelfCore
import Synchronization

/// A file for `shelf gain` to measure: its path and, when the catalogue holds it, its entry.
public struct GainInput: Sendable {
  public var path: RawPath
  public var entry: CatalogEntry?

  /// A file to measure; `entry` when it is catalogued (its gains are then kept).
  public init(path: RawPath, entry: CatalogEntry?) {
    self.path = path
    self.entry = entry
  }
}

/// One file measured: its loudness and the ReplayGain 2.0 values derived from it.
public struct MeasuredTrack: Sendable {
  public var path: RawPath
  /// The album it was measured with (see `ReplayGainScan.albumKey`), by its position in
  /// `GainReport.albums`.
  public var album: Int
  /// Integrated loudness, LUFS.
  public var loudness: Double
  /// True peak, linear.
  public var truePeak: Double
  /// Track and album gains and peaks (source `.measured`).
  public var gain: ReplayGain
  /// Whether the catalogue holds the file (its gains are then kept).
  public var isCatalogued: Bool
  /// The file's status when it was opened for measuring.
  var identity: ContentIdentity
}

/// One album measured: its tracks measured as one programme.
public struct MeasuredAlbum: Sendable {
  /// `ALBUM` or `ALBUM — ALBUM ARTIST` from the tags, else the folder.
  public var name: String
  /// Integrated loudness of all its tracks together, LUFS.
  public var loudness: Double
  /// The largest true peak of its tracks.
  public var truePeak: Double
  /// The album gain, dB.
  public var gain: Double
  /// Positions of its tracks in `GainReport.tracks`.
  public var tracks: [Int]
}

/// What a `shelf gain` run measured, and what it could not.
public struct GainReport: Sendable {
  /// The files measured, in the order given.
  public var tracks: [MeasuredTrack] = []
  /// The albums, in the order of their first track.
  public var albums: [MeasuredAlbum] = []
  /// One error per file that could not be measured (naming it).
  public var failures: [AudioError] = []
}

/// Measures files' loudness (EBU R128 through libebur128, on samples from shelf's decoders)
/// `width` files at a time, each on a thread of its own, and derives track and album
/// ReplayGain 2.0 values (reference −18 LUFS, true peaks). Reads files only: nothing is written
/// to them.
public enum ReplayGainScan {
  /// Measures `inputs`; a file that cannot be decoded costs that file only.
  public static func measure(_ inputs: [GainInput], width: Int) async -> GainReport {
    let queue = WorkQueue(count: inputs.count)
    await withTaskGroup(of: Void.self) { group in
      for _ in 0..<max(1, min(width, inputs.count)) {
        group.addTask {
          await BlockingThread.run {
            while true {
              let index = queue.next.add(1, ordering: .relaxed).oldValue
              guard index < inputs.count else { break }
              let outcome = measureOne(inputs[index])
              queue.results.withLock { $0[index] = outcome }
            }
          }
        }
      }
    }
    let outcomes = queue.results.withLock { $0 }
    var report = GainReport()
    var albumIndex: [String: Int] = [:]
    var meters: [[LoudnessMeter]] = []
    for (index, outcome) in outcomes.enumerated() {
      switch outcome {
      case .some(.success(let measured)):
        let key = albumKey(inputs[index].entry?.audio?.tags ?? measured.tags, path: inputs[index].path)
        let album: Int
        if let known = albumIndex[key.key] {
          album = known
        } else {
          album = report.albums.count
          albumIndex[key.key] = album
          report.albums.append(MeasuredAlbum(name: key.name, loudness: 0, truePeak: 0, gain: 0, tracks: []))
          meters.append([])
        }
        meters[album].append(measured.meter)
        report.albums[album].tracks.append(report.tracks.count)
        let loudness = measured.meter.loudness
        let peak = measured.meter.truePeak
        report.tracks.append(
          MeasuredTrack(
            path: inputs[index].path, album: album, loudness: loudness, truePeak: peak,
            gain: ReplayGain(
              trackGain: LoudnessMeter.gain(loudness: loudness), trackPeak: peak, source: .measured),
            isCatalogued: inputs[index].entry != nil, identity: measured.identity))
      case .some(.failure(let error)):
        report.failures.append(error)
      case .none:
        report.failures.append(
          AudioError(path: inputs[index].path, reason: .damaged, message: "not measured"))
      }
    }
    for album in report.albums.indices {
      let loudness = LoudnessMeter.loudness(of: meters[album])
      let peak = report.albums[album].tracks.map { report.tracks[$0].truePeak }.max() ?? 0
      report.albums[album].loudness = loudness
      report.albums[album].truePeak = peak
      report.albums[album].gain = LoudnessMeter.gain(loudness: loudness)
      for track in report.albums[album].tracks {
        report.tracks[track].gain = ReplayGain(
          trackGain: report.tracks[track].gain.trackGain, trackPeak: report.tracks[track].gain.trackPeak,
          albumGain: report.albums[album].gain, albumPeak: peak, source: .measured)
      }
    }
    return report
  }

  /// Keeps the gains of the catalogued tracks of `report` in the catalogue at `location`, in
  /// one transaction under the writer lock (waiting up to `lockWait` seconds, as `index`
  /// does); returns how many were kept.
  public static func keep(
    _ report: GainReport, in location: CatalogLocation, shelfVersion: String, lockWait: Double
  ) throws -> Int {
    let rows = report.tracks.filter(\.isCatalogued).map { ($0.identity, $0.gain) }
    guard !rows.isEmpty else { return 0 }
    let writer = try CatalogStore.openForWriting(
      at: location, shelfVersion: shelfVersion, lockWait: lockWait, create: false)
    try MeasuredGains.store(rows, into: writer)
    return rows.count
  }

  /// The album a file is measured with: the same album tag and album artist (an album tag
  /// without an album artist: the same album tag in the same folder); a file without an album
  /// tag: its folder.
  static func albumKey(_ tags: AudioTags, path: RawPath) -> (key: String, name: String) {
    let folder = path.absolute.parent
    let folderText = String(decoding: folder.bytes, as: UTF8.self)
    if let album = tags.album, !album.isEmpty {
      if let artist = tags.albumArtist, !artist.isEmpty {
        return ("a\u{0}\(album)\u{0}\(artist)", "\(album) — \(artist)")
      }
      return ("f\u{0}\(folderText)\u{0}\(album)", album)
    }
    return ("d\u{0}\(folderText)", folder.escaped)
  }

  /// A measured file: its meter (kept for its album), its tags, the status it was opened with.
  struct Measured: @unchecked Sendable {
    // @unchecked: the meter is handed from the measuring thread to the caller once, after the
    // thread is done with it.
    var meter: LoudnessMeter
    var tags: AudioTags
    var identity: ContentIdentity
  }

  static func measureOne(_ input: GainInput) -> Result<Measured, AudioError> {
    let file: RegularFile
    do {
      file = try RegularFile(path: input.path)
    } catch {
      return .failure(AudioError(path: input.path, reason: .missingFile, message: error.reason))
    }
    do throws(AudioError) {
      let (meter, tags) = try LoudnessMeter.measure(file)
      return .success(Measured(meter: meter, tags: tags, identity: ContentIdentity(file.status)))
    } catch {
      return .failure(error)
    }
  }

  /// The next file to measure and the outcomes, shared by the threads.
  private final class WorkQueue: Sendable {
    let next = Atomic<Int>(0)
    let results: Mutex<[Result<Measured, AudioError>?]>

    init(count: Int) { results = Mutex(Array(repeating: nil, count: count)) }
  }
}
