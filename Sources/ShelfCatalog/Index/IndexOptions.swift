public import ShelfBackup
import ShelfCore
public import ShelfWorkers

/// How a scan should run.
public struct IndexOptions: Sendable {
  /// Ignore what is known and re-extract every file.
  public var full = false
  /// `--exclude` globs that replace the ones stored with the root (an empty list clears
  /// them); nil scans with the stored ones.
  public var excludes: [String]?
  /// Files extracted at once.
  public var jobs = 2
  /// Follow symbolic links that stay inside the root.
  public var followLinks = false
  /// Files extracted per batch.
  public var batchSize = 256
  /// Batches are committed together until this many seconds have passed (0: every batch):
  /// fewer, larger transactions write the full-text index far more cheaply, and an
  /// interruption loses at most this much work.
  public var commitInterval: Double = 1
  /// Timestamps this close to the scan's start (seconds) are not trusted.
  public var recentWindow: Double = 3
  /// A pause after each committed batch (tests use it to interrupt a scan part way).
  public var pauseAfterBatch: Double = 0
  /// Start the walk only once the known files are loaded, so that the walk's sieve passes over
  /// every unchanged file (tests use it: in a small tree the walk usually ends first).
  public var walkAfterLoadingKnownFiles = false
  /// How long to wait for another indexer of the same root (a shared catalogue) to finish
  /// before giving up with `.busy`.
  public var lockWait: Double = 2
  /// Asked between batches (and during the walk): true stops the scan with `.interrupted`,
  /// keeping every batch already committed.
  public var shouldStop: @Sendable () -> Bool = { false }
  /// Asked for the password of an encrypted iPhone backup when one is met, with how many
  /// passwords this backup has refused so far (nil: none (more) to give, and the backup
  /// reports that it needs one, or that the last was wrong).
  public var backupPassword: Backup.PasswordSource = { _, _ in nil }
  /// The folders this run could not scan (set by `IndexRun`): a backup that refused to open
  /// when named as a root (a password needed, a wrong one) is not asked for or warned about
  /// again when the folder that holds it is scanned next.
  public var failedThisRun: Set<RawPath> = []
  /// Where the content of backup files is spooled when `/dev/shm` is not available, or when
  /// it is larger than `inMemorySpoolLimit`.
  public var temporaryFolder = RawPath("/tmp")
  /// The largest decrypted backup file held in memory (`/dev/shm`) while its facts are read.
  public var inMemorySpoolLimit: Int64 = 64 << 20
  /// The sandboxed worker processes that read files' facts; nil reads them in this process
  /// (library tests, where this process is not shelf).
  public var extractors: ExtractorPool?
  /// Read again the files whose last reading crashed, timed out or ran out of memory, even
  /// when they are unchanged.
  public var retryFailed = false

  /// The defaults: incremental, the root's stored excludes, 2 jobs, links not followed.
  public init() {}
}

/// Where a scan has got to, for progress display.
public struct IndexProgress: Sendable {
  public enum Phase: Sendable { case walking, extracting }
  public var root: RawPath
  public var phase: Phase
  /// Files examined so far (walking: found so far).
  public var done: Int
  /// Files to examine (known after the walk).
  public var total: Int
}

/// What a scan of one root did.
public struct RootScanSummary: Sendable {
  public var root: RawPath
  public var files = 0
  public var added = 0
  public var updated = 0
  public var unchanged = 0
  public var moved = 0
  public var removed = 0
  /// Files whose facts could not be read (catalogued with an error).
  public var extractionErrors: [WalkProblem] = []
  /// Folders and files that could not be read: the walk's folders (`walk.unreadable`) first.
  public var unreadable: [WalkProblem] = []
  public var walk = WalkSummary()
  public var isSandbox = false
  public var bundle: BundleInfo?
  /// For an iPhone backup: the device, iOS version, date and encryption.
  public var backup: BackupRootFacts?
  /// Problems that leave part of the root out (one line each): for a backup, manifest rows it
  /// cannot give and files that cannot be read. The rest is catalogued.
  public var problems: [WalkProblem] = []
  /// The backups found inside, in path order: each is a root of its own (listed under this
  /// one), scanned after it; one that could not be read (a password missing or wrong, a
  /// damaged manifest) has its error, and none of its files is catalogued.
  public var nested: [NestedScan] = []
  /// Catalogued roots inside the folder that are not backups: they keep their entries, and
  /// this scan left them out.
  public var coveredRoots: [RawPath] = []
  /// The catalogued root the scanned folder lies in, when it is not a root itself: its
  /// entries are that root's, and no root was added.
  public var partOf: RawPath?
}

/// The scan of a backup found inside a scanned folder.
public struct NestedScan: Sendable {
  public var folder: RawPath
  public var outcome: Result<RootScanSummary, any Error>
}
