import ShelfCore
import Synchronization

/// Lets a rescan's walk pass over the files the catalogue holds unchanged as it meets them,
/// once what the catalogue knows has been loaded (on another thread, while the walk runs):
/// such a file gets no path of its own and is not kept for `Indexer.classify`. Building,
/// keeping and then looking up every path after the walk was a third of an unchanged
/// rescan's work besides the system calls. Each walker thread sieves the files it walked
/// before the load ended when it first sees the sieve loaded.
final class UnchangedFileSieve: @unchecked Sendable {
  /// What is known and which of it the walk passed over. Its properties never change, so a
  /// walker asks it about each file without retaining them.
  final class Loaded: @unchecked Sendable {
    let known: KnownFiles
    /// Per record, 1 once a walker passed over its file. A walk meets each path once, so
    /// threads write distinct bytes.
    let passed: UnsafeMutableBufferPointer<UInt8>
    let extractorVersion: Int
    let retryingFailures: Bool

    fileprivate init(known: KnownFiles, extractorVersion: Int, retryingFailures: Bool) {
      self.known = known
      passed = .allocate(capacity: known.count)
      passed.initialize(repeating: 0)
      self.extractorVersion = extractorVersion
      self.retryingFailures = retryingFailures
    }

    deinit { passed.deallocate() }

    /// Whether the file whose path is `path` and whose status is `status` needs nothing
    /// done; if so its record is marked passed.
    func passes(_ path: UnsafeRawBufferPointer, _ status: FileStatus) -> Bool {
      guard let index = known.index(of: path),
        known.isUnchanged(
          at: index, status: status, extractorVersion: extractorVersion, retryingFailures: retryingFailures)
      else { return false }
      passed[index] = 1
      return true
    }
  }

  private let isPublished = Atomic<Bool>(false)
  /// Written once, before `isPublished` is set; read only after it is seen set.
  private var published: Loaded?
  private let extractorVersion: Int
  private let retryingFailures: Bool

  init(extractorVersion: Int, retryingFailures: Bool) {
    self.extractorVersion = extractorVersion
    self.retryingFailures = retryingFailures
  }

  /// Hands the walk what is known; called once, by the thread that loaded it.
  func publish(_ known: KnownFiles) {
    published = Loaded(known: known, extractorVersion: extractorVersion, retryingFailures: retryingFailures)
    isPublished.store(true, ordering: .releasing)
  }

  /// What is known, once published.
  var loaded: Loaded? { isPublished.load(ordering: .acquiring) ? published : nil }
}
