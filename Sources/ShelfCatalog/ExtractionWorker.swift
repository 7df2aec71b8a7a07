internal import CSandboxSupport
import ShelfCore

#if canImport(Glibc)
  import Glibc
#endif

/// One file for a worker to read: sent with the file's open descriptor, so that the worker
/// never opens what the walk found by name.
struct WorkerRequest: Codable {
  /// The path the file was opened from (for the reasons in errors).
  var path: [UInt8]
  /// Lowercased, no dot: breaks ties when the content is not conclusive.
  var fileExtension: String
  /// CPU seconds the worker may spend on this file.
  var cpuSeconds: Int
}

/// What a worker found for one file.
enum WorkerReply: Codable {
  case extracted(Extraction)
  /// The file could not be read at all (the `FileError` reason and whether it is gone).
  case unreadable(reason: String, vanished: Bool)
}

/// The worker side of isolated extraction: `shelf` started with `argument` reads facts of
/// the files its parent sends, one at a time, under a seccomp filter and resource limits (see
/// CSandboxSupport), so that a crash, hang or runaway allocation in a parser or C library
/// costs the one file it was reading. Requests arrive with their descriptor on standard input
/// (a SOCK_SEQPACKET socket); replies go to standard output (a pipe), each an 8-byte
/// little-endian length and a `WireFormat` `WorkerReply`.
public enum ExtractionWorker {
  /// The command-line argument that starts a worker (not a command: it is not in help).
  public static let argument = "--extraction-worker"
  /// The largest request accepted.
  static let requestLimit = 1 << 16
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
    // Libraries loaded on first use (FFmpeg, libheif) still load under the filter: it allows
    // opening files for reading and mapping them.
    let entered = shelf_sandbox_enter(addressSpaceLimit)
    guard entered == 0 else {
      let message = "shelf: cannot enter the extraction sandbox: \(String(cString: strerror(-entered)))\n"
      _ = message.withCString { Glibc.write(2, $0, strlen($0)) }
      return 71
    }
    var buffer = [UInt8](repeating: 0, count: requestLimit)
    while true {
      var descriptor: Int32 = -1
      let count = buffer.withUnsafeMutableBytes {
        shelf_receive_with_descriptor(0, $0.baseAddress, $0.count, &descriptor)
      }
      guard count > 0 else { return count == 0 ? 0 : 74 }
      guard descriptor >= 0,
        let request = try? WireFormat.decode(WorkerRequest.self, from: Array(buffer[..<count]))
      else {
        if descriptor >= 0 { close(descriptor) }
        return 65
      }
      _ = shelf_sandbox_limit_cpu(UInt32(clamping: request.cpuSeconds))
      let reply = extract(request, descriptor: descriptor)
      guard let bytes = try? WireFormat.encode(reply), send(bytes) else { return 74 }
    }
  }

  private static func extract(_ request: WorkerRequest, descriptor: Int32) -> WorkerReply {
    let path = RawPath(bytes: request.path)
    do {
      let file = try RegularFile(adopting: descriptor, path: path)
      WorkerFault.injectIfAsked(for: path)
      return .extracted(try MetadataExtractor.extract(file, fileExtension: request.fileExtension))
    } catch let error as FileError {
      return .unreadable(reason: error.reason, vanished: error.isNoSuchFile)
    } catch {
      return .unreadable(reason: "\(error)", vanished: false)
    }
  }

  /// Writes one reply: its length, then its bytes.
  private static func send(_ bytes: [UInt8]) -> Bool {
    var message: [UInt8] = []
    message.reserveCapacity(8 + bytes.count)
    for shift in stride(from: 0, to: 64, by: 8) {
      message.append(UInt8(truncatingIfNeeded: bytes.count >> shift))
    }
    message.append(contentsOf: bytes)
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
/// file whose name is `SHELF_WORKER_FAULT_FILE`. Release builds ignore both (and the start
/// marker).
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

  static func injectIfAsked(for path: RawPath) {
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
        while true { pause() }
      case "oom":
        // Swift arrays, touched page by page as a decoder filling buffers would.
        var blocks: [[UInt8]] = []
        while true { blocks.append([UInt8](repeating: UInt8(blocks.count & 0xFF | 1), count: 64 << 20)) }
      case "syscall:socket":
        _ = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
      case "syscall:execve":
        _ = execv("/bin/true", [strdup("true"), nil])
      case "syscall:open-write":
        // Refused with EPERM, not fatal: the worker goes on, and the file it tried stays unmade.
        let descriptor = open("/tmp/shelf-worker-fault", O_WRONLY | O_CREAT, 0o600)
        if descriptor >= 0 {
          close(descriptor)
        } else {
          let message = "open for writing refused: \(String(cString: strerror(errno)))\n"
          _ = message.withCString { Glibc.write(2, $0, strlen($0)) }
        }
      case "syscall:write":
        _ = Glibc.write(0, "x", 1)
      default:
        break
      }
    #endif
  }
}
