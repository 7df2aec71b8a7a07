internal import CSandboxSupport
import ShelfCore
import ShelfFacts
import Synchronization

#if canImport(Glibc)
  import Glibc
#endif

/// Why a worker gave no facts for a file: it died or was stopped while reading it. When the
/// file was the cause (a crash, a time-out spent computing, memory beyond shelf's own limit),
/// the file is catalogued with `reason` as its error and is not read again until it changes,
/// the extractor version changes or `index --retry-failed` asks; when the cause lay outside
/// it (`interrupted`), it is read again on the next run.
public struct WorkerFailure: ShelfError, Equatable {
  public enum Cause: Sendable, Equatable {
    /// Killed by a signal (a trap in a parser, a fault in a C library, a forbidden call).
    case crashed(signal: Int32)
    /// Past the per-file wall-clock or CPU-time limit.
    case timedOut(seconds: Int)
    /// Past the worker's address-space limit.
    case outOfMemory
    /// The worker broke the protocol.
    case failed(String)
    /// Stopped by something outside the file: the worker could not start or enter its
    /// sandbox, was killed by a signal no file raises (the kernel's out-of-memory killer,
    /// `kill`), ran out of a limit lower than shelf's own that it inherited, or overran the
    /// file's time without spending it on the file (a busy machine).
    case interrupted(String)
  }
  public var path: RawPath
  public var cause: Cause
  public var failure: FailureKind { .badInput }

  /// Whether the file itself made the worker fail (else it is read again on the next run).
  public var isCausedByFile: Bool {
    if case .interrupted = cause { return false }
    return true
  }

  /// The reason stored with the file.
  public var reason: String {
    switch cause {
    case .crashed(let signal): "extractor crashed (signal \(signal))"
    case .timedOut(let seconds): "timed out after \(seconds) s"
    case .outOfMemory: "out of memory"
    case .failed(let why): "extractor failed: \(why)"
    case .interrupted(let why): "extraction interrupted: \(why)"
    }
  }
  public var description: String { "\(path.escaped): \(reason)" }

  /// Whether a stored or reported `reason` is an `interrupted` failure's.
  package static func isInterruption(_ reason: String) -> Bool {
    reason.hasPrefix("extraction interrupted: ")
  }

  /// How every `reason` starts: what marks a stored error as a worker's failure.
  package static let reasonPrefixes = [
    "extractor crashed (", "timed out after ", "out of memory", "extractor failed: ",
    "extraction interrupted: ",
  ]
}

/// The address-space limit (`ulimit -v`, `prlimit --as`) this process inherited, and so every
/// worker it starts, when it is below what a worker needs to read every kind of file.
public struct AddressSpaceShortfall: Sendable, CustomStringConvertible {
  /// The soft limit inherited, in bytes.
  public var limit: UInt64

  /// The least address space in which a worker reads every kind of file: 384 MiB read all of
  /// SampleMedia every time and 352 MiB not always (FFmpeg's libraries and ICU's data could
  /// not be mapped), with room for the buffers of larger files.
  public static let needed: UInt64 = 512 << 20

  /// The shortfall of this process, nil when its limit is enough (or there is none).
  public static let current: AddressSpaceShortfall? = {
    guard let limit = inheritedAddressSpace, limit < needed else { return nil }
    return AddressSpaceShortfall(limit: limit)
  }()

  /// The soft address-space limit of this process; nil when unlimited.
  static let inheritedAddressSpace: UInt64? = {
    var limit = rlimit()
    guard getrlimit(Int32(RLIMIT_AS.rawValue), &limit) == 0, limit.rlim_cur != rlim_t.max else { return nil }
    return UInt64(limit.rlim_cur)
  }()

  public var description: String {
    "the address-space limit (ulimit -v) of \(Quantities.formatByteSize(Int64(limit))) is below the "
      + "\(Quantities.formatByteSize(Int64(Self.needed))) shelf's extraction workers need: files they "
      + "cannot read are read again on the next run"
  }
}

/// Reads facts in sandboxed worker processes (see `ExtractionWorker`): a small pool of the
/// `shelf` binary in worker mode, started when a file must first be read (`startWorkers`: as a
/// new root is walked) and reused for the files after it; a worker that crashes, hangs or runs
/// out of memory costs only the file it was reading and is replaced for the next one.
public final class ExtractorPool: Sendable {
  /// The program started as a worker: this shelf.
  public let executable: RawPath
  /// The per-file wall-clock limit in seconds; nil: 30 s plus 1 s per 100 MiB of the file.
  public let fileTimeout: Int?
  private let idle = Mutex<[WorkerProcess]>([])

  /// A pool of `executable` workers (`/proc/self/exe`: the running shelf).
  public init(executable: RawPath = RawPath("/proc/self/exe"), fileTimeout: Int? = nil) {
    self.executable = executable
    self.fileTimeout = fileTimeout
  }

  /// The pool a command reads files with: none (facts read in this process) when
  /// `SHELF_EXTRACT_IN_PROCESS=1`, which `make bench-index` compares against.
  public static func forCommand(environment: [String: String], fileTimeout: Int? = nil) -> ExtractorPool? {
    environment["SHELF_EXTRACT_IN_PROCESS"] == "1" ? nil : ExtractorPool(fileTimeout: fileTimeout)
  }

  deinit {
    for worker in idle.withLock({ $0 }) { worker.stop() }
  }

  /// Starts workers until `count` wait idle, for files about to be read: a worker started
  /// while a new root is walked has its runtime up when the first batch comes (6 ms of a
  /// small tree's run). One that cannot start is left to the first file, which says why.
  public func startWorkers(upTo count: Int, for path: RawPath) {
    for _ in 0..<max(0, count - idle.withLock { $0.count }) {
      guard let worker = try? WorkerProcess.start(executable, for: path) else { return }
      idle.withLock { $0.append(worker) }
    }
  }

  /// The wall-clock (and CPU-time) limit for a file of `size` bytes.
  public func timeout(forSize size: Int64) -> Int {
    fileTimeout ?? 30 + Int(max(0, size) / (100 << 20))
  }

  /// The facts of an open file, read by a worker.
  public func extract(_ file: RegularFile, fileExtension: String) throws -> FileFacts {
    var result: Result<FileFacts, any Error>?
    var given = false
    extractQueued { () -> (tag: Void, file: RegularFile, fileExtension: String)? in
      defer { given = true }
      return given ? nil : ((), file, fileExtension)
    } deliver: { _, outcome in
      result = outcome
    }
    return try result!.get()
  }

  /// The perceptual fingerprint of an open file, computed by a worker (libvips, libjpeg,
  /// FFmpeg and Chromaprint read it there, never in this process). Throws the file's error, or
  /// a `WorkerFailure` when the worker died or overran the file's time.
  public func fingerprint(_ file: RegularFile, _ kind: SimilarityFingerprint.Kind) throws
    -> SimilarityFingerprint
  {
    let limit = timeout(forSize: file.status.size)
    let worker = try idle.withLock { $0.popLast() } ?? WorkerProcess.start(executable, for: file.path)
    // A failed send means the worker died on an earlier file: the receive says why.
    _ = worker.send([(file, "", limit)], task: .fingerprint(kind))
    let reply = try worker.receive(for: file.path, timeout: limit)
    idle.withLock { $0.append(worker) }
    switch reply {
    case .fingerprinted(let fingerprint): return fingerprint
    case .unreadable(let reason, let vanished):
      throw FileError(path: file.path, reason: reason, failure: .badInput, code: vanished ? ENOENT : nil)
    case .extracted: throw WorkerFailure(path: file.path, cause: .failed("answered another task"))
    }
  }

  /// The most files sent to a worker in one message: 16, fewer when the process may open few
  /// files (each queued file is open here and in flight to the worker, for every job).
  public static let batchSize: Int = {
    var limit = rlimit()
    guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return 16 }
    return max(1, min(16, Int(clamping: limit.rlim_cur) / 32))
  }()
  /// Messages queued at a worker: it finds the next batch waiting when it finishes one.
  static let batchesInFlight = 2

  /// A file handed to a worker, and what its result is delivered for.
  private struct Queued<Tag> {
    var tag: Tag
    var file: RegularFile
    var fileExtension: String
  }

  /// Reads the facts of every file `next` hands out (nil: no more), in order, through one
  /// worker at a time, `batchSize` files to a message and `batchesInFlight` messages queued
  /// at it; `deliver` gets each result as it comes. When the worker dies or overruns a file's
  /// time, the files of its batch that it had not answered are read again one to a worker,
  /// so that the file it was reading, and only that file, gets the `WorkerFailure`.
  public func extractQueued<Tag>(
    next: () -> (tag: Tag, file: RegularFile, fileExtension: String)?,
    deliver: (Tag, Result<FileFacts, any Error>) -> Void
  ) {
    var worker: WorkerProcess?
    var inFlight: [[Queued<Tag>]] = []
    // Files to read alone (their batch failed), and files of batches that never started.
    var alone: [Queued<Tag>] = []
    var again: [Queued<Tag>] = []
    var exhausted = false
    func batch() -> [Queued<Tag>] {
      if !alone.isEmpty { return [alone.removeFirst()] }
      var files: [Queued<Tag>] = []
      while files.count < Self.batchSize {
        if !again.isEmpty {
          files.append(again.removeFirst())
        } else if !exhausted, let item = next() {
          files.append(Queued(tag: item.tag, file: item.file, fileExtension: item.fileExtension))
        } else {
          exhausted = true
          break
        }
      }
      return files
    }
    while true {
      while inFlight.count < Self.batchesInFlight {
        let files = batch()
        guard let first = files.first else { break }
        do {
          let running =
            try worker ?? idle.withLock { $0.popLast() }
            ?? WorkerProcess.start(executable, for: first.file.path)
          worker = running
          inFlight.append(files)
          // A failed send means the worker died on an earlier file: the receive below says why.
          guard
            running.send(files.map { ($0.file, $0.fileExtension, timeout(forSize: $0.file.status.size)) })
          else { break }
        } catch {
          for file in files { deliver(file.tag, .failure(error)) }
        }
      }
      guard let running = worker, !inFlight.isEmpty else { break }
      var head = inFlight.removeFirst()[...]
      do {
        while let file = head.first {
          // The worker is on one of these files: the clock allows the slowest of them.
          let limit = head.map { timeout(forSize: $0.file.status.size) }.max() ?? 0
          let reply = try running.receive(for: file.file.path, timeout: limit)
          head = head.dropFirst()
          switch reply {
          case .extracted(let facts):
            deliver(file.tag, .success(facts))
          case .unreadable(let reason, let vanished):
            let error = FileError(
              path: file.file.path, reason: reason, failure: .io, code: vanished ? ENOENT : nil)
            deliver(file.tag, .failure(error))
          case .fingerprinted:
            deliver(
              file.tag, .failure(WorkerFailure(path: file.file.path, cause: .failed("answered another task")))
            )
          }
        }
      } catch {
        // The worker is gone (reaped). When one file of the batch is unanswered, the worker
        // was reading it; of several, which one is not known (answers wait in the worker for
        // up to `flushInterval`): each is read again on its own.
        if head.count == 1, let file = head.first {
          deliver(file.tag, .failure(error))
        } else {
          alone = Array(head) + alone
        }
        again = inFlight.flatMap { $0 } + again
        inFlight = []
        worker = nil
      }
    }
    if let worker { idle.withLock { $0.append(worker) } }
  }
}

/// One worker process and its two channels. Used by one thread at a time (the pool hands it
/// out and takes it back), hence unchecked.
final class WorkerProcess: @unchecked Sendable {
  let pid: pid_t
  /// Our end of the request socket (SOCK_SEQPACKET, descriptors travel with requests).
  private let requests: Int32
  /// The read end of the reply pipe.
  private let replies: Int32
  /// The largest reply accepted (facts and the capped search text are far smaller).
  static let replyLimit = 64 << 20

  private init(pid: pid_t, requests: Int32, replies: Int32) {
    self.pid = pid
    self.requests = requests
    self.replies = replies
  }

  /// The environment a worker keeps, by prefix: its locale and time zone, where the dynamic
  /// loader finds libraries, glibc's and libvips' tunables, and (debug builds) its test
  /// hooks' (`WorkerTestHooks`). Nothing else reaches it: no password (`SHELF_BACKUP_PASSWORD`, `PGPASSWORD`),
  /// token or database URL; not the Swift backtracer (it would exec a helper) nor the dynamic
  /// loader's trace file (`LD_DEBUG_OUTPUT`, written by a later dlopen), which the filter
  /// forbids.
  static let keptEnvironment =
    ["LANG=", "LANGUAGE=", "LC_", "TZ=", "LD_LIBRARY_PATH=", "GLIBC_TUNABLES=", "MALLOC_", "VIPS_"]
    + WorkerTestHooks.environmentPrefixes

  /// Starts `executable` in worker mode; `path` names the file it was started for in errors.
  static func start(_ executable: RawPath, for path: RawPath) throws(WorkerFailure) -> WorkerProcess {
    var sockets: [Int32] = [-1, -1]
    var pipe: [Int32] = [-1, -1]
    guard socketpair(AF_UNIX, Int32(SOCK_SEQPACKET.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &sockets) == 0
    else {
      throw WorkerFailure(path: path, cause: .interrupted("socketpair: \(String(cString: strerror(errno)))"))
    }
    guard shelf_pipe_cloexec(&pipe) == 0 else {
      let code = errno
      close(sockets[0])
      close(sockets[1])
      throw WorkerFailure(path: path, cause: .interrupted("pipe: \(String(cString: strerror(code)))"))
    }
    defer {
      close(sockets[1])
      close(pipe[1])
    }
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_adddup2(&actions, sockets[1], 0)
    posix_spawn_file_actions_adddup2(&actions, pipe[1], 1)
    posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
    _ = shelf_spawn_close_from(&actions, 3)
    var attributes = posix_spawnattr_t()
    posix_spawnattr_init(&attributes)
    defer { posix_spawnattr_destroy(&attributes) }
    var defaults = sigset_t()
    sigemptyset(&defaults)
    for signal in [SIGINT, SIGTERM, SIGPIPE, SIGCHLD, SIGHUP, SIGQUIT] { sigaddset(&defaults, signal) }
    var mask = sigset_t()
    sigemptyset(&mask)
    posix_spawnattr_setsigdefault(&attributes, &defaults)
    posix_spawnattr_setsigmask(&attributes, &mask)
    // A process group of its own: Ctrl-C at the terminal is the parent's to handle.
    posix_spawnattr_setpgroup(&attributes, 0)
    posix_spawnattr_setflags(
      &attributes, Int16(POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETPGROUP))
    var environment = ["SWIFT_BACKTRACE=enable=no"]
    var index = 0
    while let entry = environ[index] {
      let text = String(cString: entry)
      if Self.keptEnvironment.contains(where: text.hasPrefix) { environment.append(text) }
      index += 1
    }
    // From the first worker on, for the rest of the run: no worker (nor any process of the
    // same user) may ptrace this process or take its descriptors, the catalogue's among them.
    _ = shelf_make_undumpable()
    let arguments = ["shelf", ExtractionWorker.argument]
    var pid = pid_t()
    let code = withCStrings(arguments) { argv in
      withCStrings(environment) { envp in
        executable.withCString { posix_spawn(&pid, $0, &actions, &attributes, argv, envp) }
      }
    }
    guard code == 0 else {
      close(sockets[0])
      close(pipe[0])
      throw WorkerFailure(
        path: path, cause: .interrupted("cannot start a worker: \(String(cString: strerror(code)))"))
    }
    return WorkerProcess(pid: pid, requests: sockets[0], replies: pipe[0])
  }

  /// Queues a batch of files at the worker: their requests in one message, with their
  /// descriptors. False when the worker is gone.
  func send(_ files: [(file: RegularFile, fileExtension: String, cpuSeconds: Int)], task: WorkerTask = .facts)
    -> Bool
  {
    let batch = files.map {
      WorkerRequest(
        path: $0.file.path.bytes, fileExtension: $0.fileExtension, cpuSeconds: $0.cpuSeconds, task: task)
    }
    guard files.count <= Int(SHELF_MAX_PASSED_DESCRIPTORS), case let bytes = WireFormat.encode(batch),
      bytes.count <= ExtractionWorker.requestLimit
    else { return false }
    // The files stay open (and their descriptors valid) until the batch is answered.
    var descriptors: [Int32] = []
    for entry in files { descriptors.append(entry.file.withDescriptor { $0 }) }
    let sent = bytes.withUnsafeBytes { raw in
      descriptors.withUnsafeBufferPointer {
        shelf_send_with_descriptors(requests, raw.baseAddress, raw.count, $0.baseAddress, $0.count)
      }
    }
    return sent == bytes.count
  }

  /// Waits at most `timeout` seconds for the reply to the oldest file queued (`path`). On any
  /// failure the worker is killed and reaped, and the failure says why it died.
  func receive(for path: RawPath, timeout: Int) throws(WorkerFailure) -> WorkerReply {
    lateMark = nil
    let deadline = MonotonicClock.seconds() + Double(timeout)
    guard let header = read(count: 8, until: deadline) else { throw died(path, cpuSeconds: timeout) }
    var length = 0
    for (index, byte) in header.enumerated() { length |= Int(byte) << (index * 8) }
    guard length >= 0, length <= Self.replyLimit else {
      stop()
      throw WorkerFailure(path: path, cause: .failed("reply of \(length) bytes"))
    }
    guard let body = read(count: length, until: deadline) else { throw died(path, cpuSeconds: timeout) }
    do {
      return try WireFormat.decode(WorkerReply.self, from: body)
    } catch {
      stop()
      throw WorkerFailure(path: path, cause: .failed("\(error)"))
    }
  }

  /// The timeout found by `read`, kept so that `died` reports it rather than the SIGKILL.
  private var timedOut = false

  /// Reply bytes read but not yet taken: one read often brings several replies.
  private var buffered: [UInt8] = []
  private var taken = 0

  /// Takes exactly `count` reply bytes, reading before `deadline`; nil when the worker closed
  /// its end (it died) or the deadline passed (then it is killed).
  private func read(count: Int, until deadline: Double) -> [UInt8]? {
    while buffered.count - taken < count {
      let left = deadline - MonotonicClock.seconds()
      if left <= 0 {
        timedOut = true
        let now = MonotonicClock.seconds()
        if let mark = lateMark, let cpu = cpuTime(), now - mark.wall > 0.1 {
          cpuShareAtTimeout = (cpu - mark.cpu) / (now - mark.wall)
        }
        kill(pid, SIGKILL)
        return nil
      }
      var poller = pollfd(fd: replies, events: Int16(POLLIN), revents: 0)
      let ready = poll(&poller, 1, Int32(min(left * 1000 + 1, 250)))
      if ready < 0 {
        if errno == EINTR { continue }
        kill(pid, SIGKILL)
        return nil
      }
      if ready == 0 {
        // The window starts again while the worker is still busy (with the files before this
        // one, or this one): what a time-out weighs is the time since it last was.
        if let cpu = cpuTime() {
          let now = MonotonicClock.seconds()
          let idleSinceMark =
            lateMark.map { now - $0.wall > 0.1 && (cpu - $0.cpu) / (now - $0.wall) < 0.5 } ?? false
          if !idleSinceMark { lateMark = (now, cpu) }
        }
        continue
      }
      if taken > 0 {
        buffered.removeFirst(taken)
        taken = 0
      }
      let start = buffered.count
      let want = max(count - start, 1 << 16)
      buffered.append(contentsOf: repeatElement(0, count: want))
      let result = buffered.withUnsafeMutableBytes { Glibc.read(replies, $0.baseAddress! + start, want) }
      buffered.removeLast(want - max(result, 0))
      if result < 0 {
        if errno == EINTR || errno == EAGAIN { continue }
        kill(pid, SIGKILL)
        return nil
      }
      if result == 0 { return nil }
    }
    defer { taken += count }
    return Array(buffered[taken..<taken + count])
  }

  /// Reaps the worker after it stopped answering and says why, and whether the file was the
  /// cause: under an inherited address-space limit below what workers need, nothing is
  /// blamed on the file.
  private func died(_ path: RawPath, cpuSeconds: Int) -> WorkerFailure {
    let wasTimedOut = timedOut
    let status = reap()
    let cause = Self.cause(
      timedOut: wasTimedOut, cpuSeconds: cpuSeconds, cpuShare: cpuShareAtTimeout, status: status)
    if AddressSpaceShortfall.current != nil, case let failure = WorkerFailure(path: path, cause: cause),
      failure.isCausedByFile
    {
      let limit = Quantities.formatByteSize(Int64(AddressSpaceShortfall.current?.limit ?? 0))
      return WorkerFailure(
        path: path, cause: .interrupted("\(failure.reason) under an address-space limit of \(limit)"))
    }
    return WorkerFailure(path: path, cause: cause)
  }

  /// Why a worker died: how it ended (`status`: its exit code or signal), whether the parent
  /// killed it at the file's time limit, and the share of a CPU it had while the reply was late.
  private static func cause(
    timedOut: Bool, cpuSeconds: Int, cpuShare: Double, status: (exited: Bool, code: Int32)?
  )
    -> WorkerFailure.Cause
  {
    if timedOut {
      // A file that keeps a worker busy keeps it on the CPU; a worker that was on it less than
      // half the time waited for a busy machine (or blocked).
      if cpuShare >= 0.5 { return .timedOut(seconds: cpuSeconds) }
      return .interrupted("timed out after \(cpuSeconds) s, on the CPU \(Int(cpuShare * 100)) % of the time")
    }
    guard let status else { return .interrupted("worker vanished") }
    if status.exited {
      if status.code == SHELF_WORKER_EXIT_OUT_OF_MEMORY {
        // Below shelf's own limit, the limit was the user's, not the file's doing.
        if let inherited = AddressSpaceShortfall.inheritedAddressSpace,
          inherited < ExtractionWorker.addressSpaceLimit
        {
          return .interrupted(
            "out of memory under an address-space limit of \(Quantities.formatByteSize(Int64(inherited)))")
        }
        return .outOfMemory
      }
      return .interrupted("worker exited with status \(status.code)")
    }
    switch status.code {
    case SIGXCPU: return .timedOut(seconds: cpuSeconds)
    // What a file can make a reader raise: traps, faults, aborts, a forbidden call.
    case SIGILL, SIGTRAP, SIGABRT, SIGBUS, SIGFPE, SIGSEGV, SIGSYS: return .crashed(signal: status.code)
    // Not sent by us: the kernel's out-of-memory killer, or someone's kill.
    default: return .interrupted("worker killed (signal \(status.code))")
    }
  }

  /// The worker's CPU time (user and system) in seconds, from /proc; nil when unreadable.
  private func cpuTime() -> Double? {
    let descriptor = open("/proc/\(pid)/stat", O_RDONLY | O_CLOEXEC)
    guard descriptor >= 0 else { return nil }
    defer { Glibc.close(descriptor) }
    var stat = [UInt8](repeating: 0, count: 1024)
    let count = stat.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress!, $0.count) }
    guard count > 0, let close = stat[..<count].lastIndex(of: UInt8(ascii: ")")) else { return nil }
    let fields = stat[(close + 1)..<count].split(separator: UInt8(ascii: " "))
    // After the command: state is field 3, utime 14 and stime 15.
    guard fields.count > 12, let user = Int(String(decoding: fields[11], as: UTF8.self)),
      let system = Int(String(decoding: fields[12], as: UTF8.self))
    else { return nil }
    return Double(user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
  }

  /// When the reply awaited was late (a quarter second without one) and the worker last busy,
  /// and its CPU time then: what it has spent since tells a busy file from a busy machine (a
  /// worker still reading the files before a hung one is not the hung file's time).
  private var lateMark: (wall: Double, cpu: Double)?
  /// The share of a CPU the worker had from `lateMark` to its time-out (1 when unknown).
  private var cpuShareAtTimeout: Double = 1

  /// Closes both channels and waits for the process; its exit code or signal.
  @discardableResult
  private func reap() -> (exited: Bool, code: Int32)? {
    close(requests)
    close(replies)
    var status: Int32 = 0
    while waitpid(pid, &status, 0) < 0 {
      guard errno == EINTR else { return nil }
    }
    let signal = status & 0x7F
    if signal == 0 { return (true, (status >> 8) & 0xFF) }
    return (false, signal)
  }

  /// Stops an idle (or misbehaving) worker.
  func stop() {
    kill(pid, SIGKILL)
    reap()
  }
}

/// Calls `body` with a NULL-terminated C array of `strings`.
private func withCStrings<T>(_ strings: [String], _ body: ([UnsafeMutablePointer<CChar>?]) -> T) -> T {
  let pointers = strings.map { strdup($0) } + [nil]
  defer { for pointer in pointers { free(pointer) } }
  return body(pointers)
}
