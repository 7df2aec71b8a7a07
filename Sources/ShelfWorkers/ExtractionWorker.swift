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
    let hooks = WorkerTestHooks.atStart()
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
        let reply = WireFormat.encode(extract(request, descriptor: descriptor, hooks: hooks))
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

  private static func extract(_ request: WorkerRequest, descriptor: Int32, hooks: WorkerTestHooks)
    -> WorkerReply
  {
    let path = RawPath(bytes: request.path)
    do {
      let file = try RegularFile(adopting: descriptor, path: path)
      try hooks.inject(for: path, descriptor: descriptor)
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
