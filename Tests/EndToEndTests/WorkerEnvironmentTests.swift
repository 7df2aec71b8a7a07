import Foundation
import ShelfTestSupport
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// Extraction workers under the limits and accidents of the machine they run on: they fit
/// inside an inherited address-space limit, and a file whose worker failed for a reason
/// outside it is read again on the next run, not left failed as "unchanged".
@Suite struct WorkerEnvironmentTests {
  typealias Tree = IsolatedExtractionTests.Tree

  /// `prlimit --as=BYTES`, around a command.
  static func addressSpace(_ bytes: Int) -> [String] { ["prlimit", "--as=\(bytes)"] }

  @Test func everyGoodFileIsReadUnderAnAddressSpaceLimitBelowTwoGiB() throws {
    let tree = try Tree()
    let limit = Self.addressSpace(1536 << 20)
    let names = ["rgb16.png", "tone-440-mono.wav", "notes.txt", "victim.txt"]
    let info = try ShelfProcess.run(["info"] + names.map { tree.root + "/" + $0 }, launcher: limit)
    #expect(info.status == 0, "\(info.stderr)")
    #expect(info.stderr.isEmpty)
    for name in names { #expect(info.stdout.contains("path:         \(tree.root)/\(name)\n")) }
    let index = try ShelfProcess.run(
      ["--db", tree.database, "index", tree.root], environment: ["SHELF_TRUST_WINDOW": "0"], launcher: limit)
    #expect(index.status == 0, "\(index.stderr)")
    #expect(
      index.stdout.hasPrefix("\(tree.root): 4 files\n  4 new, 0 updated, 0 unchanged, 0 moved, 0 removed\n"))
    try tree.expectGoodFilesCatalogued()
  }

  /// Under 256 MiB FFmpeg's libraries cannot be mapped: shelf says once what it needs, and the
  /// files that could not be read are read on the next run without the limit.
  @Test func filesNotReadUnderATooLowLimitAreReadOnTheNextRun() throws {
    let tree = try Tree()
    let first = try ShelfProcess.run(
      ["--db", tree.database, "index", "--jobs", "1", tree.root], environment: ["SHELF_TRUST_WINDOW": "0"],
      launcher: Self.addressSpace(256 << 20))
    let warning =
      "warning: the address-space limit (ulimit -v) of 256 MiB is below the 512 MiB shelf's extraction "
      + "workers need: files they cannot read are read again on the next run\n"
    #expect(first.stderr.hasPrefix(warning), "\(first.stderr)")
    #expect(first.stderr.components(separatedBy: "ulimit -v").count == 2)
    let failed = try tree.records().filter { $0.value["error"] != nil }.keys.sorted()
    #expect(failed.contains("tone-440-mono.wav"), "\(failed)")
    let again = try ShelfProcess.run(
      ["--db", tree.database, "index", tree.root], environment: ["SHELF_TRUST_WINDOW": "0"])
    #expect(again.status == 0, "\(again.stderr)")
    #expect(
      again.stdout.hasPrefix(
        "\(tree.root): 4 files\n  0 new, \(failed.count) updated, \(4 - failed.count) unchanged, 0 moved, 0 removed\n"
      ))
    try tree.expectGoodFilesCatalogued()
  }

  /// The same for the files of an iPhone backup, whose rescan goes by the manifest.
  @Test func backupFilesNotReadUnderATooLowLimitAreReadOnTheNextRun() throws {
    let scratch = try TemporaryDirectory()
    let backup = scratch.path + "/manifest-db"
    try FileManager.default.copyItem(
      atPath: ShelfProcess.repositoryRoot.path + "/SampleMedia/Backups/manifest-db", toPath: backup)
    let database = scratch.path + "/catalogue.sqlite"
    let first = try ShelfProcess.run(
      ["--db", database, "index", "--jobs", "1", backup], launcher: Self.addressSpace(256 << 20))
    #expect(
      first.stdout.contains("\(backup): 5 files\n  5 new, 0 updated, 0 unchanged, 0 moved, 0 removed\n"))
    #expect(first.stdout.contains("  2 with errors"), "\(first.stdout)")
    let again = try ShelfProcess.run(["--db", database, "index", backup])
    #expect(again.status == 0, "\(again.stderr)")
    #expect(
      again.stdout.hasPrefix("\(backup): 5 files\n  0 new, 2 updated, 3 unchanged, 0 moved, 0 removed\n"))
    let listed = try ShelfProcess.run(["--db", database, "ls", "--json"])
    #expect(!listed.stdout.contains("\"error\""), "\(listed.stdout)")
  }

  /// A worker killed from outside (SIGKILL, as the kernel's out-of-memory killer sends) while
  /// it reads a file: the file is not blamed.
  @Test func aFileWhoseWorkerWasKilledFromOutsideIsReadOnTheNextRun() throws {
    let scratch = try TemporaryDirectory()
    let root = scratch.path + "/tree"
    _ = try scratch.write("tree/victim.txt", Array("a plain text file\n".utf8))
    let database = scratch.path + "/catalogue.sqlite"
    // The worker hangs on the victim until it is killed.
    let index = try BackgroundShelf(
      ["--db", database, "index", "--jobs", "1", "--file-timeout", "60", root],
      environment: [
        "SHELF_TRUST_WINDOW": "0", "SHELF_WORKER_FAULT": "hang", "SHELF_WORKER_FAULT_FILE": "victim.txt",
      ])
    var worker: Int32 = 0
    #expect(
      ObservableWait.until {
        worker = IsolatedExtractionTests.workers(of: index.process.processIdentifier).first ?? 0
        // Reading the victim: its descriptor is open in the worker.
        let descriptors = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(worker)/fd")) ?? []
        return worker > 0
          && descriptors.contains {
            (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(worker)/fd/\($0)"))
              == root + "/victim.txt"
          }
      })
    kill(worker, SIGKILL)
    #expect(index.wait() == 1)
    let listed = try ShelfProcess.run(["--db", database, "ls", "--json"])
    #expect(
      listed.stdout.contains("\"error\":\"extraction interrupted: worker killed (signal 9)\""),
      "\(listed.stdout)")
    let again = try ShelfProcess.run(
      ["--db", database, "index", root], environment: ["SHELF_TRUST_WINDOW": "0"])
    #expect(again.status == 0, "\(again.stderr)")
    #expect(again.stdout.hasPrefix("\(root): 1 file\n  0 new, 1 updated, 0 unchanged, 0 moved, 0 removed\n"))
    let read = try ShelfProcess.run(["--db", database, "ls", "--json"])
    #expect(!read.stdout.contains("\"error\""), "\(read.stdout)")
  }
}
