internal import CSandboxSupport
import ShelfCore

#if canImport(Glibc)
  import Glibc
#endif

#if SHELF_TEST_HOOKS
  /// A worker's test hooks, read from its environment once, when it starts: faults it makes
  /// on request, so that tests can reach the isolation paths that no real file triggers, and
  /// a marker that counts the workers a run started. They exist only where `SHELF_TEST_HOOKS`
  /// is defined (debug builds, as for CSandboxSupport's C part; see Package.swift): a release
  /// binary has none, reads none of these variables and passes none of them to its workers.
  struct WorkerTestHooks {
    /// What a worker does when it reaches the file named `SHELF_WORKER_FAULT_FILE`
    /// (`SHELF_WORKER_FAULT`).
    enum Fault: String {
      /// A Swift trap, as a parser's overflow would be.
      case crash
      /// Asleep, as a reader blocked on a lock would be (pause is not in the filter's list).
      case hang
      /// Swift arrays, touched page by page as a decoder filling buffers would.
      case oom
      /// Refused with EPERM: the worker goes on. Had it been allowed, the worker aborts.
      case socket = "syscall:socket"
      /// On the request socket it inherited: fatal.
      case connect = "syscall:connect"
      case execve = "syscall:execve"
      /// Refused with EPERM, not fatal: the worker goes on, and the file it tried stays
      /// unmade. Had it been allowed, the worker aborts.
      case openWrite = "syscall:open-write"
      case write = "syscall:write"
      /// The calls of a worker that has been taken over, against the parent, the file and
      /// the process `SHELF_WORKER_FAULT_PID` (else the parent): their outcomes become the
      /// file's error.
      case forbiddenCalls = "forbidden-calls"
    }

    /// The fault asked for and the name of the file it is made on; nil: none, or an unknown
    /// fault.
    var asked: (fault: Fault, fileName: [UInt8])?
    /// The process `forbiddenCalls` signals (`SHELF_WORKER_FAULT_PID`).
    var faultPID: Int32?
    /// The file a worker appends a line to when it starts (`SHELF_WORKER_START_MARKER`).
    var startMarker: String?

    /// The variables a worker keeps from its parent's environment for them, by prefix.
    static let environmentPrefixes = ["SHELF_WORKER_"]

    /// The hooks `variable` (the value of an environment variable) asks for.
    init(environment variable: (String) -> String?) {
      if let fault = variable("SHELF_WORKER_FAULT").flatMap(Fault.init(rawValue:)),
        let name = variable("SHELF_WORKER_FAULT_FILE")
      {
        asked = (fault, Array(name.utf8))
      }
      faultPID = variable("SHELF_WORKER_FAULT_PID").flatMap { Int32($0) }
      startMarker = variable("SHELF_WORKER_START_MARKER")
    }

    /// The hooks of this worker, read from its environment; records its start (before the
    /// filter forbids writing).
    static func atStart() -> WorkerTestHooks {
      let hooks = WorkerTestHooks { getenv($0).map { String(cString: $0) } }
      if let marker = hooks.startMarker {
        let descriptor = open(marker, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o600)
        if descriptor >= 0 {
          _ = Glibc.write(descriptor, "started\n", 8)
          close(descriptor)
        }
      }
      return hooks
    }

    /// The fault to make on the file at `path`, if any.
    func fault(for path: RawPath) -> Fault? {
      guard let asked, path.lastComponent.bytes == asked.fileName else { return nil }
      return asked.fault
    }

    /// Makes the fault asked for on the file at `path`, open as `descriptor`.
    func inject(for path: RawPath, descriptor: Int32) throws(FileError) {
      switch fault(for: path) {
      case nil:
        break
      case .crash:
        let huge = Int.max - Int(getpid() & 1)
        _ = [huge][0] + 2
      case .hang:
        while true { sleep(3600) }
      case .oom:
        var blocks: [[UInt8]] = []
        while true { blocks.append([UInt8](repeating: UInt8(blocks.count & 0xFF | 1), count: 64 << 20)) }
      case .socket:
        if socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0) >= 0 { abort() }
      case .connect:
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        _ = withUnsafePointer(to: &address) {
          $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
            connect(0, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
          }
        }
      case .execve:
        _ = execv("/bin/true", [strdup("true"), nil])
      case .openWrite:
        let descriptor = open("/tmp/shelf-worker-fault", O_WRONLY | O_CREAT, 0o600)
        if descriptor >= 0 { abort() }
      case .write:
        _ = Glibc.write(0, "x", 1)
      case .forbiddenCalls:
        let sibling = faultPID ?? getppid()
        var report = [CChar](repeating: 0, count: 4096)
        path.withCString {
          shelf_sandbox_try_forbidden_calls(descriptor, $0, getppid(), sibling, &report, report.count)
        }
        let outcomes = String(
          decoding: report.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        throw FileError(path: path, reason: "forbidden calls: " + outcomes, failure: .badInput)
      }
    }
  }
#else
  /// A release build's worker has no test hooks (see the `SHELF_TEST_HOOKS` build's): it reads
  /// no variable for them and keeps none from its parent.
  struct WorkerTestHooks {
    static let environmentPrefixes: [String] = []
    static func atStart() -> WorkerTestHooks { WorkerTestHooks() }
    func inject(for path: RawPath, descriptor: Int32) throws(FileError) {}
  }
#endif
