import Foundation
import ShelfTestSupport
import Testing

/// Warnings name the file as the user knows it, never the descriptor path (`/proc/self/fd/N`)
/// through which shelf or its worker read it (issue 44, item 15).
@Suite struct UserPathWarningTests {
  /// `dupes --similar` decodes each picture and recording through its descriptor: one that
  /// cannot be decoded is a warning naming its catalogued path, in a worker and in process.
  @Test(arguments: [false, true]) func similarSearchWarnsWithTheUsersPath(inProcess: Bool) throws {
    let scratch = try TemporaryDirectory()
    let root = scratch.path + "/media"
    let png = SampleBackupCopy.sampleBytes("Documents/checker-gray.png")
    let flac = SampleBackupCopy.sampleBytes("Documents/chord-stereo.flac")
    try #require(png.count > 300 && flac.count > 300)
    _ = try scratch.write("media/cut.png", Array(png.prefix(300)))
    _ = try scratch.write("media/cut.flac", Array(flac.prefix(300)))
    let database = scratch.path + "/catalog.sqlite"
    let environment = inProcess ? ["SHELF_EXTRACT_IN_PROCESS": "1"] : [:]
    #expect(try ShelfProcess.run(["--db", database, "index", root], environment: environment).status == 1)

    let result = try ShelfProcess.run(["--db", database, "dupes", "--similar"], environment: environment)
    let lines = result.stderr.split(separator: "\n").map(String.init)
    #expect(!result.stderr.contains("/proc/"), "\(result.stderr)")
    #expect(lines.count == 2, "\(result.stderr)")
    #expect(
      lines.contains {
        $0.hasPrefix("warning: \(root)/cut.png: cannot decode image: ") && $0.hasSuffix("; skipped")
      })
    #expect(
      lines.contains {
        $0.hasPrefix("warning: \(root)/cut.flac: damaged audio file: ") && $0.hasSuffix("; skipped")
      })
  }

  /// An encrypted backup entry is played from a private decrypted copy: a track found cut
  /// short while it plays is reported by the entry's path, not the copy's descriptor.
  @Test func aTruncatedBackupTrackIsReportedByItsPath() throws {
    let scratch = try TemporaryDirectory()
    let backup = scratch.file("backups/cut")
    // The generator's encrypted backup of today, with half of a FLAC added as a recording.
    let build = """
      import importlib.util, sys
      spec = importlib.util.spec_from_file_location("backups", sys.argv[1])
      backups = importlib.util.module_from_spec(spec); spec.loader.exec_module(backups)
      whole = backups.read_sample
      backups.read_sample = lambda s: whole(s)[: len(whole(s)) // 2] if s.endswith(".flac") else whole(s)
      extra = [("MediaDomain", "Media/Recordings/cut.flac", "Documents/chord-stereo.flac", 3)]
      backups.build(sys.argv[2], "manifest-db-encrypted", backups.FILES + extra, backups.LINKS, None)
      """
    let generated = try ExternalTool.run([
      "python3", "-c", build,
      ShelfProcess.repositoryRoot.appendingPathComponent("scripts/make-backups.py").path,
      backup,
    ])
    try #require(generated.status == 0, "\(generated.stderr)")
    let track = backup + "/MediaDomain/Media/Recordings/cut.flac"
    let result = try ShelfProcess.run(
      ["play", "-D", "null", "--no-interactive", track],
      environment: ["SHELF_BACKUP_PASSWORD": SampleBackupCopy.password])
    // Played part way, then failed: a partial failure, as for a file cut short on disk.
    #expect(result.status == 1)
    #expect(!result.stderr.contains("/proc/"), "\(result.stderr)")
    #expect(result.stderr.contains("error: \(track): truncated audio file: "), "\(result.stderr)")
  }
}
