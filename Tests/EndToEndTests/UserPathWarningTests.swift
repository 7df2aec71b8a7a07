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

  /// An encrypted backup entry is read from a private decrypted copy: a track found cut short
  /// while it plays, or a recording `show` cannot read, is reported by the entry's path, not
  /// the copy's descriptor.
  @Test func aDamagedBackupEntryIsReportedByItsPath() throws {
    let scratch = try TemporaryDirectory()
    let backup = scratch.file("backups/cut")
    // The generator's encrypted backup of today, with the first halves of a FLAC and an M4A.
    let build = """
      import importlib.util, sys
      spec = importlib.util.spec_from_file_location("backups", sys.argv[1])
      backups = importlib.util.module_from_spec(spec); spec.loader.exec_module(backups)
      whole = backups.read_sample
      backups.read_sample = lambda s: whole(s)[: len(whole(s)) // 2] if s.endswith(("flac", "m4a")) else whole(s)
      extra = [("MediaDomain", "Media/Recordings/cut.flac", "Documents/chord-stereo.flac", 3),
               ("MediaDomain", "Media/Recordings/cut.m4a", "Documents/Music/morning-chord.m4a", 3)]
      backups.build(sys.argv[2], "manifest-db-encrypted", backups.FILES + extra, backups.LINKS, None)
      """
    let generated = try ExternalTool.run([
      "python3", "-c", build,
      ShelfProcess.repositoryRoot.appendingPathComponent("scripts/make-backups.py").path,
      backup,
    ])
    try #require(generated.status == 0, "\(generated.stderr)")
    let environment = ["SHELF_BACKUP_PASSWORD": SampleBackupCopy.password]
    let flac = backup + "/MediaDomain/Media/Recordings/cut.flac"
    let played = try ShelfProcess.run(
      ["play", "-D", "null", "--no-interactive", flac], environment: environment)
    // Played part way, then failed: a partial failure, as for a file cut short on disk.
    #expect(played.status == 1)
    #expect(!played.stderr.contains("/proc/"), "\(played.stderr)")
    #expect(played.stderr.contains("error: \(flac): truncated audio file: "), "\(played.stderr)")

    let m4a = backup + "/MediaDomain/Media/Recordings/cut.m4a"
    let shown = try ShelfProcess.run(["show", m4a], environment: environment)
    #expect(shown.status == 65)
    #expect(shown.stderr == "error: \(m4a): invalid data found when processing input: moov atom not found\n")
  }
}
