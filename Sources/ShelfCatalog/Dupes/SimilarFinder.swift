import ShelfAudio
import ShelfBackup
public import ShelfCore
public import ShelfWorkers
import Synchronization

/// A group of files that look or sound alike: one picture resized, recompressed or converted,
/// one recording in several encodings.
public struct SimilarGroup: Sendable {
  public var kind: SimilarityFingerprint.Kind
  /// Images: the largest Hamming distance (bits of 64) between two members. Audio: 1 − the
  /// least similarity of two members' fingerprints (0 is identical).
  public var distance: Double
  /// The best member first (most pixels, then bytes; highest bit rate, then sample rate), then
  /// the others in path order.
  public var members: [CatalogEntry]
}

/// What a search for look-alikes found and what it could not read.
public struct SimilarReport: Sendable {
  public var groups: [SimilarGroup] = []
  public var skipped: [any ShelfError] = []
}

/// Groups catalogued images that look alike and recordings that sound alike (`dupes
/// --similar`): each image's perceptual hash (`PerceptualHash`, a DCT hash of a small decoded
/// copy) and each recording's Chromaprint fingerprint (`AudioFingerprint`) are computed in the
/// extraction workers, as facts are (a crash, hang or runaway decode costs that file only),
/// then clustered around the best file of each group (`SimilarityGrouping`): every member is
/// within the distance of the best one, so no chain of near neighbours joins two unrelated
/// pictures. A backup entry's content is read from its backup into a private spooled file.
public struct SimilarFinder: Sendable {
  let extractors: ExtractorPool?
  let backups: BackupEntryResolver
  let temporaryFolder: RawPath

  public init(extractors: ExtractorPool?, backups: BackupEntryResolver, temporaryFolder: RawPath) {
    self.extractors = extractors
    self.backups = backups
    self.temporaryFolder = temporaryFolder
  }

  /// Groups the images and audio files of `entries`: images within `maxDistance` bits of
  /// their group's best, recordings at least `AudioFingerprint.sameRecordingSimilarity` alike.
  /// A group with every file under `referenceRoots` is left out, as `dupes` leaves it out.
  public func find(_ entries: [CatalogEntry], maxDistance: Int, width: Int, referenceRoots: [RawPath] = [])
    async
    -> SimilarReport
  {
    var report = SimilarReport()
    let images = entries.filter { $0.kind == .image }.sorted(by: Self.betterImage)
    let audio = entries.filter { $0.kind == .audio && ($0.audio?.duration ?? 0) > 0 }.sorted(
      by: Self.betterAudio)
    let prints = await fingerprints(images.map { ($0, .image) } + audio.map { ($0, .audio) }, width: width)

    var imageItems: [(id: Int, hash: UInt64)] = []
    var audioItems: [SimilarityGrouping.AudioItem] = []
    for (index, result) in prints.enumerated() {
      switch result {
      case .success(.image(let hash)): imageItems.append((index, hash))
      case .success(.audio(let raw)):
        let entry = audio[index - images.count]
        audioItems.append(
          .init(id: index, fingerprint: AudioFingerprint(raw: raw), duration: entry.audio?.duration ?? 0))
      case .failure(let error):
        // A backup that does not open is told once, not once for each of its files.
        guard !report.skipped.contains(where: { $0.description == error.error.description }) else { continue }
        report.skipped.append(error.error)
      }
    }
    func entry(_ index: Int) -> CatalogEntry {
      index < images.count ? images[index] : audio[index - images.count]
    }
    func ordered(_ ids: [Int]) -> [CatalogEntry] {
      // The best first (items were given best first, so the group's first id), then by path.
      [entry(ids[0])] + ids.dropFirst().map(entry).sorted { $0.path < $1.path }
    }
    for group in SimilarityGrouping.imageGroups(imageItems, maxDistance: maxDistance) {
      report.groups.append(
        SimilarGroup(kind: .image, distance: Double(group.distance), members: ordered(group.ids)))
    }
    for group in SimilarityGrouping.audioGroups(audioItems) {
      report.groups.append(SimilarGroup(kind: .audio, distance: group.distance, members: ordered(group.ids)))
    }
    report.groups.removeAll { group in
      group.members.allSatisfy { member in referenceRoots.contains { member.path.isInside($0) } }
    }
    return report
  }

  /// Why a file has no fingerprint, kept as a value a `Result` can carry.
  struct Skipped: Error {
    let error: any ShelfError
  }

  /// The fingerprints of `files` in order, `width` at a time, each on a thread of its own.
  private func fingerprints(_ files: [(CatalogEntry, SimilarityFingerprint.Kind)], width: Int) async
    -> [Result<SimilarityFingerprint, Skipped>]
  {
    let queue = FingerprintQueue(count: files.count)
    await withTaskGroup(of: Void.self) { group in
      for _ in 0..<max(1, min(width, files.count)) {
        group.addTask {
          await BlockingThread.run {
            while true {
              let index = queue.next.add(1, ordering: .relaxed).oldValue
              guard index < files.count else { return }
              let result = Result { () throws(Skipped) in try fingerprint(files[index].0, files[index].1) }
              queue.results.withLock { $0[index] = result }
            }
          }
        }
      }
    }
    return queue.results.withLock { $0.map { $0! } }
  }

  private func fingerprint(_ entry: CatalogEntry, _ kind: SimilarityFingerprint.Kind) throws(Skipped)
    -> SimilarityFingerprint
  {
    do {
      var spooled: SpooledFile?
      let file: RegularFile
      if entry.backup != nil {
        guard let (_, content) = try backups.spool(entry.path, temporaryFolder: temporaryFolder) else {
          throw FileError(path: entry.path, reason: "no longer in its backup", failure: .missingInput)
        }
        spooled = content
        file = try content.open()
      } else {
        file = try RegularFile(path: entry.path, followLinks: false)
      }
      // The spooled copy lives until its fingerprint is taken.
      return try withExtendedLifetime(spooled) {
        guard let extractors else { return try SimilarityFingerprint.compute(kind, of: file) }
        return try extractors.fingerprint(file, kind)
      }
    } catch let error as BackupError where entry.backup != nil && error.path != entry.path {
      // The backup itself (a password needed, a damaged manifest): told about the backup.
      throw Skipped(error: error)
    } catch let error as any ShelfError {
      throw Skipped(error: Self.naming(error, entry.path))
    } catch {
      throw Skipped(error: FileError(path: entry.path, reason: "\(error)", failure: .badInput))
    }
  }

  /// An error about a spooled copy or a descriptor path, told about the catalogued path.
  private static func naming(_ error: any ShelfError, _ path: RawPath) -> any ShelfError {
    guard !error.description.hasPrefix(path.escaped) else { return error }
    let reason = (error as? FileError)?.reason ?? (error as? WorkerFailure)?.reason ?? error.description
    return FileError(path: path, reason: reason, failure: error.failure)
  }

  /// The next file to fingerprint and the results so far, shared by the threads.
  private final class FingerprintQueue: Sendable {
    let next = Atomic<Int>(0)
    let results: Mutex<[Result<SimilarityFingerprint, Skipped>?]>

    init(count: Int) {
      results = Mutex([Result<SimilarityFingerprint, Skipped>?](repeating: nil, count: count))
    }
  }

  /// The better of two pictures of one subject: more pixels, then more bytes, then the path.
  static func betterImage(_ a: CatalogEntry, _ b: CatalogEntry) -> Bool {
    let pixels = { (e: CatalogEntry) in (e.image?.width ?? 0) * (e.image?.height ?? 0) }
    if pixels(a) != pixels(b) { return pixels(a) > pixels(b) }
    return a.size != b.size ? a.size > b.size : a.path < b.path
  }

  /// The better of two encodings of one recording: lossless first, then the higher bit rate,
  /// sample rate, then the path.
  static func betterAudio(_ a: CatalogEntry, _ b: CatalogEntry) -> Bool {
    let lossless = { (e: CatalogEntry) in e.audio?.isLossless == true }
    if lossless(a) != lossless(b) { return lossless(a) }
    let bitrate = { (e: CatalogEntry) in e.audio?.bitrate ?? 0 }
    if bitrate(a) != bitrate(b) { return bitrate(a) > bitrate(b) }
    let rate = { (e: CatalogEntry) in e.audio?.sampleRate ?? 0 }
    return rate(a) != rate(b) ? rate(a) > rate(b) : a.path < b.path
  }
}
