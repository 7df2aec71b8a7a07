import Foundation
import ShelfTestSupport
import Testing

/// FFmpeg's libraries (and their ~130 dependencies) are loaded only by a command that decodes
/// or probes media with them, libheif (with its codecs) only by one that reads a HEIF file, and
/// libpq (with Kerberos, LDAP, GnuTLS) only by one that opens a PostgreSQL catalogue:
/// `shelf --help` and commands on other files do not map them. The dynamic loader's own trace
/// (`LD_DEBUG=libs`) says which libraries a run loaded.
@Suite struct LazyLibraryLoadingTests {
  /// The shared libraries the dynamic loader loaded for `arguments`, from its trace, with the
  /// run's status and stderr without the trace.
  /// Facts are read in this process (SHELF_EXTRACT_IN_PROCESS=1), not in a sandboxed worker,
  /// whose environment loses the loader's trace (its filter forbids writing the trace file):
  /// the loading code is the same in both.
  static func run(_ arguments: [String]) throws -> (status: Int32, loaded: [String], stderr: String) {
    let folder = try TemporaryDirectory()
    let trace = folder.path + "/ld"
    let result = try ShelfProcess.run(
      arguments, environment: ["LD_DEBUG": "libs", "LD_DEBUG_OUTPUT": trace, "SHELF_EXTRACT_IN_PROCESS": "1"])
    var loaded: [String] = []
    for name in try FileManager.default.contentsOfDirectory(atPath: folder.path) where name.hasPrefix("ld.") {
      let text = String(
        decoding: FileManager.default.contents(atPath: folder.path + "/" + name) ?? Data(), as: UTF8.self)
      for line in text.split(separator: "\n") where line.contains("calling init: ") {
        loaded.append(String(line.split(separator: "/").last ?? ""))
      }
    }
    return (result.status, loaded, result.stderr)
  }

  @Test func helpDoesNotLoadFFmpeg() throws {
    let help = try Self.run(["--help"])
    #expect(help.status == 0)
    // The trace works (libc is always there) and names no FFmpeg library.
    #expect(help.loaded.contains { $0.hasPrefix("libc.so") })
    #expect(!help.loaded.contains { $0.hasPrefix("libav") || $0.hasPrefix("libswresample") })
    #expect(!help.loaded.contains { $0.hasPrefix("libheif") })
    #expect(!help.loaded.contains { $0.hasPrefix("libpq") })
  }

  /// The facts of a HEIC (made by ImageMagick) come through libheif, loaded for it.
  @Test func describingAHEICLoadsLibheifOnFirstUse() throws {
    let folder = try TemporaryDirectory()
    try ExternalTool.make(["convert", "-size", "120x80", "plasma:red-blue", folder.file("a.heic")])
    let info = try Self.run(["info", "--json", folder.file("a.heic")])
    #expect(info.status == 0)
    #expect(info.stderr.isEmpty)
    #expect(info.loaded.contains { $0.hasPrefix("libheif.so") })
  }

  /// An MP3's facts come from shelf's own frame scanner and ID3 reader.
  @Test func describingAnMP3DoesNotLoadFFmpeg() throws {
    let folder = try TemporaryDirectory()
    let mp3 = folder.path + "/a.mp3"
    let made = try AudioE2E.tool([
      "ffmpeg", "-v", "error", "-f", "lavfi", "-i", "sine=frequency=440:duration=1", "-c:a", "libmp3lame",
      "-metadata", "title=Beep", mp3,
    ])
    #expect(made.status == 0)
    let info = try Self.run(["info", mp3])
    #expect(info.status == 0)
    #expect(info.stderr.isEmpty)
    #expect(info.loaded.contains { $0.hasPrefix("libc.so") })
    #expect(!info.loaded.contains { $0.hasPrefix("libav") })
  }

  @Test func describingAnM4ALoadsFFmpegOnFirstUse() throws {
    let folder = try TemporaryDirectory()
    let m4a = folder.path + "/a.m4a"
    let made = try AudioE2E.tool([
      "ffmpeg", "-v", "error", "-f", "lavfi", "-i", "sine=frequency=440:duration=1", "-c:a", "aac", m4a,
    ])
    #expect(made.status == 0)
    let info = try Self.run(["info", m4a])
    #expect(info.status == 0)
    #expect(info.stderr.isEmpty)
    #expect(info.loaded.contains { $0.hasPrefix("libavcodec.so") })
    #expect(info.loaded.contains { $0.hasPrefix("libavformat.so") })
  }
}
