import Foundation
import ShelfTestSupport
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// The extraction worker is the process that parses hostile bytes: these tests assume a parser
/// bug gave an attacker its control, and show that nothing outside it can be reached. The
/// calls are made from inside a live worker, after its filter is in place, by the debug
/// build's hook (`SHELF_WORKER_FAULT=forbidden-calls`), as root and as an ordinary user.
@Suite(.serialized) struct SandboxEscapeTests {
  typealias Tree = IsolatedExtractionTests.Tree

  /// Every call the hook makes, in its order; each must fail with EPERM.
  static let forbiddenCalls = [
    "pidfd_open", "pidfd_getfd", "pidfd_send_signal", "ptrace", "process_vm_readv", "process_vm_writev",
    "prlimit64", "kill", "tgkill", "tkill", "fcntl F_SETOWN", "name_to_handle_at", "open_by_handle_at",
    "fchmod",
    "fchown", "fsetxattr", "fremovexattr", "futimens", "ftruncate", "fallocate", "ioctl FS_IOC_SETFLAGS",
    "chmod",
    "fchmodat", "chown", "lchown", "setxattr", "removexattr", "utimensat", "utimes", "open for writing",
    "openat for writing", "creat", "truncate", "unlink", "memfd_create", "socket", "socketpair", "mount",
    "umount2",
    "unshare", "setns", "keyctl", "bpf", "perf_event_open", "io_uring_setup", "io_uring_enter",
    "io_uring_register", "clock_settime", "setuid",
  ]

  /// `setpriv` to user 65534 when the test runs as root and `asUser` asks; nothing otherwise.
  static func launcher(asUser: Bool) -> [String] {
    asUser && getuid() == 0 ? ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"] : []
  }

  /// Hands the tree and its catalogue folder to user 65534, so that what the worker tries on
  /// its files would succeed as their owner without the filter.
  static func handOver(_ tree: Tree) {
    for path in [tree.scratch.path, tree.root]
      + ["rgb16.png", "tone-440-mono.wav", "notes.txt", "victim.txt"].map({
        tree.root + "/" + $0
      })
    {
      #expect(chown(path, 65534, 65534) == 0)
    }
  }

  /// What can change about a file: its bytes, mode, owner, extended attributes and times.
  static func snapshot(_ path: String) -> [String] {
    var status = stat()
    guard stat(path, &status) == 0 else { return [] }
    // Swift's Glibc module has no xattr calls: Python's.
    let xattrs = try? ExternalTool.run([
      "python3", "-c",
      "import os, sys; print(sorted((n, os.getxattr(sys.argv[1], n)) for n in os.listxattr(sys.argv[1])))",
      path,
    ])
    let bytes = FileManager.default.contents(atPath: path) ?? Data()
    return [
      "\(Array(bytes))", "mode \(status.st_mode)", "owner \(status.st_uid):\(status.st_gid)",
      "xattrs \(xattrs.map { String(decoding: $0.stdout, as: UTF8.self) } ?? "none")",
      "mtime \(status.st_mtim.tv_sec).\(status.st_mtim.tv_nsec)",
    ]
  }

  /// A process to signal: `sleep`, as the user the worker runs as. (Serialized suite: a
  /// sibling started while another test reads a tool's pipe would hold that pipe open.)
  static func sibling(asUser: Bool) throws -> Process {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = launcher(asUser: asUser) + ["sleep", "600"]
    try process.run()
    return process
  }

  @Test(arguments: [false, true])
  func everyForbiddenCallFailsInsideATakenOverWorker(asUser: Bool) throws {
    let tree = try Tree()
    let victim = tree.root + "/victim.txt"
    let kept = try ExternalTool.run([
      "python3", "-c", "import os, sys; os.setxattr(sys.argv[1], 'user.shelf-kept', b'kept')", victim,
    ])
    #expect(kept.status == 0, "\(kept.stderr)")
    if asUser { Self.handOver(tree) }
    let before = Self.snapshot(victim)
    let sibling = try Self.sibling(asUser: asUser)
    defer {
      // SIGKILL: the test runner's children inherit SIGTERM ignored.
      kill(sibling.processIdentifier, SIGKILL)
      sibling.waitUntilExit()
    }
    #expect(ObservableWait.until { IsolatedExtractionTests.isRunning(sibling.processIdentifier) })
    let result = try ShelfProcess.run(
      // The parent holds the catalogue open (read-write) while the worker runs.
      ["--db", tree.database, "-v", "index", tree.root],
      environment: [
        "SHELF_TRUST_WINDOW": "0", "SHELF_WORKER_FAULT": "forbidden-calls",
        "SHELF_WORKER_FAULT_FILE": "victim.txt",
        "SHELF_WORKER_FAULT_PID": "\(sibling.processIdentifier)",
      ], launcher: Self.launcher(asUser: asUser), timeout: 60)
    // The parent was not signalled (a killed run ends with 128 + its signal).
    #expect([0, 1].contains(result.status), "\(result.stderr)")
    let prefix = "warning: \(victim): forbidden calls: "
    let line = result.stderr.split(separator: "\n").first { $0.hasPrefix(prefix) }.map(String.init) ?? ""
    let outcomes = line.dropFirst(prefix.count).components(separatedBy: ", ")
    #expect(outcomes == Self.forbiddenCalls.map { $0 + " EPERM" }, "\(result.stderr)")
    // Nothing outside the worker changed.
    #expect(Self.snapshot(victim) == before)
    #expect(IsolatedExtractionTests.isRunning(sibling.processIdentifier))
    let check = try ExternalTool.run(["sqlite3", tree.database, "PRAGMA integrity_check"])
    #expect(String(decoding: check.stdout, as: UTF8.self) == "ok\n")
    try tree.expectGoodFilesCatalogued()
  }

  @Test(arguments: [false, true])
  func aLiveWorkerHoldsNoSecretNoCatalogueAndNoPrivilege(asUser: Bool) throws {
    let tree = try Tree()
    if asUser { Self.handOver(tree) }
    let secrets = ["SHELF_BACKUP_PASSWORD": "hunter2-backup", "PGPASSWORD": "hunter2-postgres"]
    // The worker hangs on the victim, so that it can be looked at.
    let index = Process()
    index.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    index.arguments =
      Self.launcher(asUser: asUser) + [
        ShelfProcess.binary, "--db", tree.database, "index", "--jobs", "1", "--file-timeout", "60", tree.root,
      ]
    index.environment = ProcessInfo.processInfo.environment.merging(
      ["SHELF_WORKER_FAULT": "hang", "SHELF_WORKER_FAULT_FILE": "victim.txt"].merging(secrets) { $1 }
    ) { $1 }
    index.standardOutput = FileHandle.nullDevice
    index.standardError = FileHandle.nullDevice
    try index.run()
    defer {
      kill(index.processIdentifier, SIGKILL)
      index.waitUntilExit()
    }
    var worker: Int32 = 0
    var status = ""
    let sandboxed = ObservableWait.until {
      guard let found = IsolatedExtractionTests.workers(of: index.processIdentifier).first else {
        return false
      }
      worker = found
      status = (try? String(contentsOfFile: "/proc/\(worker)/status", encoding: .utf8)) ?? ""
      // The victim is open in the worker: it is past its filter and reading.
      let descriptors = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(worker)/fd")) ?? []
      return status.contains("\nSeccomp:\t2\n")
        && descriptors.contains {
          (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(worker)/fd/\($0)"))
            == tree.root + "/victim.txt"
        }
    }
    #expect(sandboxed, "\(status)")
    #expect(status.contains("\nNoNewPrivs:\t1\n"))
    #expect(status.contains("\nCapPrm:\t0000000000000000\n"))
    #expect(status.contains("\nCapEff:\t0000000000000000\n"))
    #expect(status.contains("\nCapInh:\t0000000000000000\n"))
    #expect(status.contains("\nCapAmb:\t0000000000000000\n"))
    if !asUser {
      // Only a process with CAP_SETPCAP (root) can empty its bounding set; an ordinary user's
      // worker keeps it, harmless under no_new_privs and a filter that forbids exec.
      #expect(status.contains("\nCapBnd:\t0000000000000000\n"))
    }
    let environment = FileManager.default.contents(atPath: "/proc/\(worker)/environ") ?? Data()
    #expect(!environment.isEmpty)
    for (name, value) in secrets {
      #expect(environment.range(of: Data(name.utf8)) == nil)
      #expect(environment.range(of: Data(value.utf8)) == nil)
    }
    // Its request socket, reply pipe, /dev/null, the files it was sent, libdispatch's own and
    // a library the loader is mapping: no descriptor of the parent (the catalogue's among them).
    let descriptors = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(worker)/fd")) ?? []
    let targets = descriptors.compactMap {
      try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(worker)/fd/\($0)")
    }
    #expect(!targets.contains { $0.contains("catalogue.sqlite") }, "\(targets)")
    #expect(targets.filter { $0.hasPrefix("socket:") }.count == 1, "\(targets)")
    #expect(targets.filter { $0.hasPrefix("pipe:") }.count == 1, "\(targets)")
    let others = targets.filter {
      !$0.hasPrefix("socket:") && !$0.hasPrefix("pipe:") && !$0.hasPrefix("anon_inode:")
        && !$0.hasPrefix(tree.root + "/") && !$0.hasPrefix("/usr/lib/")
    }
    #expect(others == ["/dev/null"], "\(targets)")
    if asUser {
      // The parent is not dumpable: its /proc entries belong to root, not to its user.
      var parent = stat()
      #expect(stat("/proc/\(index.processIdentifier)/fd", &parent) == 0)
      #expect(parent.st_uid == 0)
    }
  }
}
