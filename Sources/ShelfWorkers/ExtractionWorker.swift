internal import CSandboxSupport
import ShelfCore
import ShelfFacts

#if canImport(Glibc)
  import Glibc
#endif

/// What a worker reads a file for.
enum WorkerTask: Equatable {
  /// Its facts (`index`).
  case facts
  /// A perceptual fingerprint (`dupes --similar`).
  case fingerprint(SimilarityFingerprint.Kind)
}

/// One file for a worker to read: sent with the file's open descriptor, so that the worker
/// never opens what the walk found by name.
struct WorkerRequest {
  /// The path the file was opened from (for the reasons in errors).
  var path: [UInt8]
  /// Lowercased, no dot: breaks ties when the content is not conclusive.
  var fileExtension: String
  /// CPU seconds the worker may spend on this file.
  var cpuSeconds: Int
  var task: WorkerTask = .facts
}

/// What a worker found for one file.
enum WorkerReply {
  case extracted(FileFacts)
  case fingerprinted(SimilarityFingerprint)
  /// The file could not be read at all (the `FileError` reason and whether it is gone).
  case unreadable(reason: String, vanished: Bool)
}

/// The worker side of isolated extraction: `shelf` started with `argument` reads facts of
/// the files its parent sends, one at a time, under a seccomp filter and resource limits (see
/// CSandboxSupport), so that a crash, hang or runaway allocation in a parser or C library
/// costs the one file it was reading. Requests arrive in batches on standard input (a
/// SOCK_SEQPACKET socket): each message a `WireFormat` list of `WorkerRequest`s with their
/// descriptors. Replies go to standard output (a pipe) in the same order, each an 8-byte
/// little-endian length and a `WireFormat` `WorkerReply`; they are written together at the end
/// of a batch, or as soon as a file has taken `flushInterval` (so that the parent's per-file
/// clock sees a slow file's predecessors done).
public enum ExtractionWorker {
  /// The command-line argument that starts a worker (not a command: it is not in help).
  public static let argument = SHELF_WORKER_ARGUMENT
  /// The largest request message accepted.
  static let requestLimit = 1 << 20
  /// How long replies may wait in the worker before they are written.
  static let flushInterval = 0.05
  /// The address space a worker may map: far beyond what any extractor needs for one file
  /// (they read headers and bounded samples), far below what would hurt the machine.
  public static let addressSpaceLimit: UInt64 = 2 << 30

  /// Runs the worker until its parent closes the request socket; returns the exit status.
  public static func serve() -> Int32 {
    // Ctrl-C reaches the whole foreground process group: the parent decides when to stop.
    signal(SIGINT, SIG_IGN)
    signal(SIGPIPE, SIG_IGN)
    shelf_sandbox_install_crash_handler()
    WorkerFault.recordStart()
    _ = shelf_exit_when_closed(0)
    // Libraries loaded on first use (FFmpeg, libheif) still load under the filter: it allows
    // opening files for reading and mapping them.
    let entered = shelf_sandbox_enter(addressSpaceLimit)
    guard entered == 0 else {
      let message = "shelf: cannot enter the extraction sandbox: \(String(cString: strerror(-entered)))\n"
      _ = message.withCString { Glibc.write(2, $0, strlen($0)) }
      return 71
    }
    var buffer = [UInt8](repeating: 0, count: requestLimit)
    var descriptors = [Int32](repeating: -1, count: Int(SHELF_MAX_PASSED_DESCRIPTORS))
    while true {
      var count = 0
      let length = buffer.withUnsafeMutableBytes { bytes in
        descriptors.withUnsafeMutableBufferPointer {
          shelf_receive_with_descriptors(0, bytes.baseAddress, bytes.count, $0.baseAddress, $0.count, &count)
        }
      }
      guard length > 0 else { return length == 0 ? 0 : 74 }
      let received = Array(descriptors[..<count])
      guard let requests = try? WireFormat.decode([WorkerRequest].self, from: Array(buffer[..<length])),
        requests.count == received.count
      else {
        for descriptor in received { close(descriptor) }
        return 65
      }
      var replies: [UInt8] = []
      var lastFlush = MonotonicClock.seconds()
      for (request, descriptor) in zip(requests, received) {
        _ = shelf_sandbox_limit_cpu(UInt32(clamping: request.cpuSeconds))
        let reply = WireFormat.encode(extract(request, descriptor: descriptor))
        for shift in stride(from: 0, to: 64, by: 8) {
          replies.append(UInt8(truncatingIfNeeded: reply.count >> shift))
        }
        replies.append(contentsOf: reply)
        if MonotonicClock.seconds() - lastFlush >= flushInterval {
          guard write(replies) else { return 74 }
          replies.removeAll(keepingCapacity: true)
          lastFlush = MonotonicClock.seconds()
        }
      }
      guard replies.isEmpty || write(replies) else { return 74 }
    }
  }

  private static func extract(_ request: WorkerRequest, descriptor: Int32) -> WorkerReply {
    let path = RawPath(bytes: request.path)
    do {
      let file = try RegularFile(adopting: descriptor, path: path)
      try WorkerFault.injectIfAsked(for: path, descriptor: descriptor)
      switch request.task {
      case .facts:
        return .extracted(try MetadataExtractor.extract(file, fileExtension: request.fileExtension))
      case .fingerprint(let kind):
        return .fingerprinted(try SimilarityFingerprint.compute(kind, of: file))
      }
    } catch let error as FileError {
      return .unreadable(reason: error.reason, vanished: error.isNoSuchFile)
    } catch let error as any ShelfError {
      return .unreadable(reason: error.description, vanished: false)
    } catch {
      return .unreadable(reason: "\(error)", vanished: false)
    }
  }

  /// Writes replies (each already framed by its length) to the parent.
  private static func write(_ message: [UInt8]) -> Bool {
    var offset = 0
    while offset < message.count {
      let written = message.withUnsafeBytes { Glibc.write(1, $0.baseAddress! + offset, $0.count - offset) }
      if written < 0 {
        if errno == EINTR { continue }
        return false
      }
      offset += written
    }
    return true
  }
}

/// Faults a debug build's worker makes on request, so that tests can reach the isolation
/// paths that no real file triggers: `SHELF_WORKER_FAULT=crash|hang|oom|syscall:NAME` on the
/// file whose name is `SHELF_WORKER_FAULT_FILE`, and `forbidden-calls`, the calls of a worker
/// that has been taken over (against the parent, the file and the process
/// `SHELF_WORKER_FAULT_PID`), whose outcomes become the file's error. Release builds ignore
/// all of them (and the start marker): the hooks are compiled in debug builds only, so that
/// no variable can reach them in a shipped binary.
enum WorkerFault {
  /// Appends a line to `SHELF_WORKER_START_MARKER` (debug builds, before the filter forbids
  /// writing): tests count the workers a run started.
  static func recordStart() {
    #if DEBUG
      guard let marker = getenv("SHELF_WORKER_START_MARKER") else { return }
      let descriptor = open(marker, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o600)
      guard descriptor >= 0 else { return }
      _ = Glibc.write(descriptor, "started\n", 8)
      close(descriptor)
    #endif
  }

  static func injectIfAsked(for path: RawPath, descriptor: Int32) throws(FileError) {
    #if DEBUG
      guard let fault = getenv("SHELF_WORKER_FAULT").map({ String(cString: $0) }),
        let name = getenv("SHELF_WORKER_FAULT_FILE").map({ String(cString: $0) }),
        path.lastComponent.bytes == Array(name.utf8)
      else { return }
      switch fault {
      case "crash":
        // A Swift trap, as a parser's overflow would be.
        let huge = Int.max - Int(getpid() & 1)
        _ = [huge][0] + 2
      case "hang":
        // Asleep, as a reader blocked on a lock would be (pause is not in the filter's list).
        while true { sleep(3600) }
      case "oom":
        // Swift arrays, touched page by page as a decoder filling buffers would.
        var blocks: [[UInt8]] = []
        while true { blocks.append([UInt8](repeating: UInt8(blocks.count & 0xFF | 1), count: 64 << 20)) }
      case "syscall:socket":
        // Refused with EPERM: the worker goes on. Had it been allowed, the worker aborts.
        if socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0) >= 0 { abort() }
      case "syscall:connect":
        // On the request socket it inherited: fatal.
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        _ = withUnsafePointer(to: &address) {
          $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
            connect(0, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
          }
        }
      case "syscall:execve":
        _ = execv("/bin/true", [strdup("true"), nil])
      case "syscall:open-write":
        // Refused with EPERM, not fatal: the worker goes on, and the file it tried stays unmade.
        // Had it been allowed, the worker aborts.
        let descriptor = open("/tmp/shelf-worker-fault", O_WRONLY | O_CREAT, 0o600)
        if descriptor >= 0 { abort() }
      case "syscall:write":
        _ = Glibc.write(0, "x", 1)
      case "forbidden-calls":
        let sibling = getenv("SHELF_WORKER_FAULT_PID").flatMap { Int32(String(cString: $0)) } ?? getppid()
        var report = [CChar](repeating: 0, count: 4096)
        path.withCString {
          shelf_sandbox_try_forbidden_calls(descriptor, $0, getppid(), sibling, &report, report.count)
        }
        throw FileError(path: path, reason: "forbidden calls: " + String(cString: report), failure: .badInput)
      default:
        break
      }
    #endif
  }
}
