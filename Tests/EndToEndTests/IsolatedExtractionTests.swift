import Foundation
import ShelfTestSupport
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// `shelf index` reads facts in sandboxed workers: a worker that crashes, hangs, runs out of
/// memory or makes a forbidden call costs only its file. No real file triggers these paths any
/// more, so the debug build's fault hook (SHELF_WORKER_FAULT on SHELF_WORKER_FAULT_FILE) does.
@Suite struct IsolatedExtractionTests {
  /// A tree of three good files and `victim.txt`, and a catalogue beside it.
  struct Tree {
    let scratch: TemporaryDirectory
    let root: String
    let database: String

    init() throws {
      scratch = try TemporaryDirectory()
      root = scratch.path + "/tree"
      try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
      let sample = ShelfProcess.repositoryRoot.path + "/SampleMedia"
      for name in ["Documents/rgb16.png", "Documents/tone-440-mono.wav"] {
        try FileManager.default.copyItem(
          atPath: sample + "/" + name, toPath: root + "/" + URL(fileURLWithPath: name).lastPathComponent)
      }
      _ = try scratch.write("tree/notes.txt", Array("good notes\nsecond line\n".utf8))
      _ = try scratch.write("tree/victim.txt", Array("a plain text file\n".utf8))
      database = scratch.path + "/catalogue.sqlite"
    }

    func index(_ arguments: [String] = [], fault: String? = nil) throws -> ShelfResult {
      var environment = ["SHELF_TRUST_WINDOW": "0"]
      if let fault {
        environment["SHELF_WORKER_FAULT"] = fault
        environment["SHELF_WORKER_FAULT_FILE"] = "victim.txt"
      }
      return try ShelfProcess.run(
        ["--db", database, "-v", "index"] + arguments + [root], environment: environment, timeout: 60)
    }

    /// `ls --json` records by file name.
    func records() throws -> [String: [String: Any]] {
      let result = try ShelfProcess.run(["--db", database, "ls", "--json"])
      let array = try JSONSerialization.jsonObject(with: Data(result.stdoutBytes)) as? [[String: Any]] ?? []
      var byName: [String: [String: Any]] = [:]
      for record in array {
        byName[URL(fileURLWithPath: record["path"] as? String ?? "").lastPathComponent] = record
      }
      return byName
    }

    /// The good files' facts are all there.
    func expectGoodFilesCatalogued() throws {
      let records = try records()
      #expect(fact(records["rgb16.png"], "image", "width") == 40)
      #expect(fact(records["tone-440-mono.wav"], "audio", "sample_rate") == 44100)
      #expect(fact(records["notes.txt"], "text", "lines") == 2)
      for name in ["rgb16.png", "tone-440-mono.wav", "notes.txt"] { #expect(records[name]?["error"] == nil) }
    }
  }

  @Test(arguments: [
    ("crash", "extractor crashed (signal 4)"),
    ("oom", "out of memory"),
    ("syscall:connect", "extractor crashed (signal 31)"),
    ("syscall:execve", "extractor crashed (signal 31)"),
    ("syscall:write", "extractor crashed (signal 31)"),
  ])
  func aWorkerThatDiesCostsOnlyItsFile(fault: String, reason: String) throws {
    let tree = try Tree()
    let result = try tree.index(fault: fault)
    #expect(result.status == 1)
    #expect(
      result.stdout.hasPrefix(
        "\(tree.root): 4 files\n  4 new, 0 updated, 0 unchanged, 0 moved, 0 removed\n  1 with errors"))
    #expect(result.stderr.contains("warning: \(tree.root)/victim.txt: \(reason)\n"))
    try tree.expectGoodFilesCatalogued()
    let victim = try tree.records()["victim.txt"]
    #expect(victim?["error"] as? String == reason)
    // Guessed from its name, as for any file whose content could not be read.
    #expect(victim?["kind"] as? String == "text")
  }

  @Test func aHangingWorkerIsKilledAtTheFileTimeout() throws {
    let tree = try Tree()
    let start = MonotonicTime.now
    let result = try tree.index(["--file-timeout", "1"], fault: "hang")
    #expect(result.status == 1)
    // It waited without spending CPU time on the file: the time-out is not blamed on the file.
    let reason = "extraction interrupted: timed out after 1 s, on the CPU 0 % of the time"
    #expect(result.stderr.contains("warning: \(tree.root)/victim.txt: \(reason)\n"))
    #expect(MonotonicTime.now - start < 30)
    try tree.expectGoodFilesCatalogued()
    #expect(try tree.records()["victim.txt"]?["error"] as? String == reason)
  }

  @Test func aFailedFileIsNotReadAgainUntilRetryFailedAsks() throws {
    let tree = try Tree()
    #expect(try tree.index(fault: "crash").status == 1)
    // Unchanged: not tried again (the fault would crash it again), and nothing failed this time.
    let again = try tree.index(fault: "crash")
    #expect(again.status == 0)
    #expect(
      again.stdout.hasPrefix("\(tree.root): 4 files\n  0 new, 0 updated, 4 unchanged, 0 moved, 0 removed\n"))
    #expect(try tree.records()["victim.txt"]?["error"] as? String == "extractor crashed (signal 4)")
    // --retry-failed reads it again: without the fault, it now has its facts.
    let retried = try tree.index(["--retry-failed"])
    #expect(retried.status == 0)
    #expect(
      retried.stdout.hasPrefix("\(tree.root): 4 files\n  0 new, 1 updated, 3 unchanged, 0 moved, 0 removed\n")
    )
    let victim = try tree.records()["victim.txt"]
    #expect(victim?["error"] == nil)
    #expect(fact(victim, "text", "lines") == 1)
    // A changed file is read again without being asked.
    #expect(try tree.index(fault: "crash").status == 0)
    _ = try tree.scratch.write("tree/victim.txt", Array("changed\ntwice\n".utf8))
    let changed = try tree.index(fault: "crash")
    #expect(changed.status == 1)
    #expect(
      changed.stdout.hasPrefix("\(tree.root): 4 files\n  0 new, 1 updated, 3 unchanged, 0 moved, 0 removed"))
  }

  @Test func infoReportsAFileWhoseWorkerCrashedAndGoesOn() throws {
    let tree = try Tree()
    let environment = ["SHELF_WORKER_FAULT": "crash", "SHELF_WORKER_FAULT_FILE": "victim.txt"]
    let both = try ShelfProcess.run(
      ["info", tree.root + "/victim.txt", tree.root + "/notes.txt"], environment: environment)
    #expect(both.status == 1)
    #expect(both.stderr == "error: \(tree.root)/victim.txt: extractor crashed (signal 4)\n")
    #expect(both.stdout.contains("path:         \(tree.root)/notes.txt\n"))
    let alone = try ShelfProcess.run(["info", tree.root + "/victim.txt"], environment: environment)
    #expect(alone.status == 65)
    #expect(alone.stdout.isEmpty)
  }

  @Test func everyThreadOfAWorkerRunsUnderTheFilterAndEndsWithItsParent() throws {
    let tree = try Tree()
    // The worker hangs on the victim, so that it can be looked at.
    let index = try BackgroundShelf(
      ["--db", tree.database, "index", "--jobs", "1", "--file-timeout", "60", tree.root],
      environment: ["SHELF_WORKER_FAULT": "hang", "SHELF_WORKER_FAULT_FILE": "victim.txt"])
    var worker: Int32 = 0
    var threads: [String] = []
    let sandboxed = ObservableWait.until {
      guard let found = Self.workers(of: index.process.processIdentifier).first else { return false }
      worker = found
      threads = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(worker)/task")) ?? []
      return !threads.isEmpty
        && threads.allSatisfy { thread in
          let status =
            (try? String(contentsOfFile: "/proc/\(worker)/task/\(thread)/status", encoding: .utf8)) ?? ""
          return status.contains("\nSeccomp:\t2\n") && status.contains("\nNoNewPrivs:\t1\n")
        }
    }
    #expect(sandboxed, "threads \(threads)")
    // It holds only what it was given: no descriptor of this process leaked across exec.
    let descriptors = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(worker)/fd")) ?? []
    let targets = descriptors.compactMap {
      try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(worker)/fd/\($0)")
    }
    #expect(targets.filter { $0.hasPrefix("socket:") }.count == 1, "\(targets)")
    // The parent dies while the worker hangs: the worker ends too.
    index.kill(SIGKILL)
    _ = index.wait()
    #expect(ObservableWait.until { worker > 0 && !Self.isRunning(worker) })
  }

  /// Whether `pid` is a process that has not ended (a zombie has).
  static func isRunning(_ pid: Int32) -> Bool {
    guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) else {
      return false
    }
    return !status.contains("\nState:\tZ")
  }

  /// The worker processes (`shelf --extraction-worker`) whose parent is `parent`.
  static func workers(of parent: Int32) -> [Int32] {
    let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
    return entries.compactMap(Int32.init).filter { pid in
      let command = FileManager.default.contents(atPath: "/proc/\(pid)/cmdline") ?? Data()
      guard command == Data("shelf\0--extraction-worker\0".utf8) else { return false }
      let status = (try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)) ?? ""
      return status.contains("\nPPid:\t\(parent)\n")
    }
  }

  @Test func workersStartOnlyWhenAFileMustBeRead() throws {
    let tree = try Tree()
    let marker = tree.scratch.path + "/started"
    let environment = ["SHELF_TRUST_WINDOW": "0", "SHELF_WORKER_START_MARKER": marker]
    let second = tree.scratch.path + "/second"
    try FileManager.default.createDirectory(atPath: second, withIntermediateDirectories: true)
    _ = try tree.scratch.write("second/more.txt", Array("more notes\n".utf8))
    func run(_ roots: [String]) throws -> (status: Int32, started: Int) {
      unlink(marker)
      let result = try ShelfProcess.run(
        ["--db", tree.database, "index", "--jobs", "2"] + roots, environment: environment)
      let lines = String(decoding: FileManager.default.contents(atPath: marker) ?? Data(), as: UTF8.self)
      return (result.status, lines.split(separator: "\n").count)
    }
    // New roots: every file is to be read, and a worker per job starts as the first is walked;
    // the second finds them started.
    let fresh = try run([tree.root, second])
    #expect(fresh.status == 0)
    #expect(fresh.started == 2)
    // Nothing changed: nothing to read, no worker.
    let unchanged = try run([tree.root, second])
    #expect(unchanged.status == 0)
    #expect(unchanged.started == 0)
    // One changed file of a known root: a worker starts for it alone.
    _ = try tree.scratch.write("second/more.txt", Array("more notes, changed\n".utf8))
    let changed = try run([tree.root, second])
    #expect(changed.status == 0)
    #expect(changed.started == 1)
  }

  @Test(arguments: ["syscall:open-write", "syscall:socket"])
  func aWorkerCannotOpenFilesForWritingOrMakeSockets(fault: String) throws {
    let tree = try Tree()
    let target = "/tmp/shelf-worker-fault"
    unlink(target)
    // Refused (EPERM), not fatal: the worker (which aborts if the call succeeds) reads the
    // file as usual, and nothing was created.
    let result = try tree.index(fault: fault)
    #expect(result.status == 0, "\(result.stderr)")
    #expect(access(target, F_OK) != 0)
    #expect(fact(try tree.records()["victim.txt"], "text", "lines") == 1)
  }

  /// An unprivileged user's worker: libdispatch cannot raise a thread's priority and says so
  /// through syslog, whose socket is refused; the worker goes on.
  @Test func aWorkerRunsForAnUnprivilegedUser() throws {
    let tree = try Tree()
    #expect(chmod(tree.scratch.path, 0o777) == 0)
    for name in ["", "/rgb16.png", "/tone-440-mono.wav", "/notes.txt", "/victim.txt"] {
      #expect(chmod(tree.root + name, name.isEmpty ? 0o777 : 0o644) == 0)
    }
    let prefix = getuid() == 0 ? ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"] : []
    for _ in 0..<3 {
      unlink(tree.database)
      let result = try ShelfProcess.run(
        ["--db", tree.database, "-v", "index", tree.root], environment: ["SHELF_TRUST_WINDOW": "0"],
        launcher: prefix)
      #expect(result.status == 0, "\(result.stderr)")
    }
    try tree.expectGoodFilesCatalogued()
  }
}

/// A number in one of a record's fact groups (`image`, `audio`, `text`).
private func fact(_ record: [String: Any]?, _ group: String, _ name: String) -> Int? {
  (record?[group] as? [String: Any])?[name] as? Int
}

/// Seconds on the monotonic clock, to bound how long a run took.
enum MonotonicTime {
  static var now: Double {
    var time = timespec()
    clock_gettime(CLOCK_MONOTONIC, &time)
    return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
  }
}
