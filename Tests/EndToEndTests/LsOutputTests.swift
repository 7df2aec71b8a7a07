import Foundation
import ShelfTestSupport
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// How `ls` presents entries: relative paths, templates, and the table on a terminal.
@Suite struct LsOutputTests {
  /// Runs shelf on the sample's catalogue from `folder` (through `env -C`).
  private func run(_ sample: IndexedSample, in folder: String, _ arguments: [String]) throws -> ShelfResult {
    try ShelfProcess.run(["--db", sample.database] + arguments, launcher: ["-C", folder])
  }

  @Test(arguments: TestCatalogues.kinds) func pathsAreRelativeToTheCurrentFolderInsideTheRoot(
    store: CatalogueStoreKind
  ) throws {
    let sample = try IndexedSample(store)
    var result = try run(
      sample, in: sample.root + "/Documents", ["ls", "ext:flac,ext:plist", "area:documents,area:bundle"])
    #expect(result.status == 0)
    #expect(
      result.stdoutBytes
        == Array(
          """
          ../Demo.app/Info.plist           plist   665 B  binary dictionary 15 keys
          Music/duet-repeated-artist.flac  audio  35 KiB  0:01 flac 44100 Hz 2 ch  First Voice; Second Voice – Duet
          chord-stereo.flac                audio  64 KiB  0:02 flac 44100 Hz 2 ch  Shelf Test Signals – C Major Chord
          recent-items.plist               plist   209 B  binary array
          settings.plist                   plist   683 B  xml dictionary 5 keys

          """.utf8))
    // Outside every root, paths stay absolute; -0 and --json keep absolute paths everywhere.
    result = try run(sample, in: sample.scratch.path, ["ls", "name:=settings.plist"])
    #expect(result.stdout == "\(sample.root)/Documents/settings.plist  plist  683 B  xml dictionary 5 keys\n")
    result = try run(sample, in: sample.root + "/Documents", ["ls", "-0", "name:=settings.plist"])
    #expect(result.stdoutBytes == Array("\(sample.root)/Documents/settings.plist".utf8) + [0])
  }

  @Test(arguments: TestCatalogues.kinds) func pipesGetWholeLinesWithoutHeaderOrEscapesWhateverTheWidth(
    store: CatalogueStoreKind
  ) throws {
    let sample = try IndexedSample(store)
    let result = try ShelfProcess.run(
      ["--db", sample.database, "ls", "name:=chord-stereo.flac"],
      environment: ["COLUMNS": "40", "NO_COLOR": "", "LS_COLORS": "*.flac=01;32"])
    #expect(
      result.stdoutBytes
        == Array(
          "\(sample.root)/Documents/chord-stereo.flac  audio  64 KiB  0:02 flac 44100 Hz 2 ch  Shelf Test Signals – C Major Chord\n"
            .utf8))
  }

  @Test(arguments: TestCatalogues.kinds) func formatTemplatesFillFieldsAndLeaveMissingOnesEmpty(
    store: CatalogueStoreKind
  ) throws {
    let sample = try IndexedSample(store)
    var result = try sample.run(["ls", "--format", "{artist} - {title} ({duration})", "kind:audio"])
    #expect(result.status == 0)
    #expect(
      result.stdoutBytes
        == Array(
          """
          First Voice; Second Voice - Duet (0:01)
          Shelf Test Signals - Lossless Fifth (0:01)
          Shelf Test Signals - Morning Chord (0:02)
          Shelf Test Signals; Guest Voice - No Xing Header (0:02)
          Shelf Test Signals - AIFF With ID3 (0:01)
          Shelf Test Signals - Four Beeps (0:02)
          Shelf Test Signals - C Major Chord (0:02)
          Shelf Test Signals - Sweep 220-880 Hz (0:01)
          Shelf Test Signals - A440 Tone (0:01)
           -  (0:02)

          """.utf8))
    result = try sample.run([
      "ls", "-f", "{name}|{width}×{height}|{lines} {encoding}|{{{size}}}", "area:preferences,ext:txt",
    ])
    #expect(
      result.stdout == """
        cafe-latin1.txt|×|4 latin-1|{117}
        ferry-utf16be.txt|×|3 utf-16be|{288}
        letter-koi8r.txt|×|4 koi8-r|{157}
        minutes-gb18030.txt|×|4 gb18030|{128}
        readme-crlf.txt|×|3 ascii|{68}
        shopping-utf16le.txt|×|4 utf-16le|{138}
        today-utf32le.txt|×|4 utf-32le|{316}
        todo-windows1251.txt|×|4 windows-1251|{178}
        trip-shiftjis.txt|×|4 shift_jis|{146}
        welcome-utf8.txt|×|6 utf-8|{228}
        com.example.shelfdemo.display.plist|×| |{422}
        com.example.shelfdemo.plist|×| |{178}
        upload.part.txt|×|1 ascii|{31}

        """)
    result = try sample.run(["ls", "-f", "{path}", "name:=rgb16.png"])
    #expect(result.stdout == "\(sample.root)/Documents/rgb16.png\n")
  }

  @Test(arguments: TestCatalogues.kinds) func unknownTemplateFieldsAndConflictingModesAreUsageErrors(
    store: CatalogueStoreKind
  ) throws {
    let sample = try IndexedSample(store)
    var result = try sample.run(["ls", "--format", "{artst} - {title}"])
    #expect(result.status == 64)
    #expect(result.stdout.isEmpty)
    #expect(result.stderr.hasPrefix("error: --format: unknown field 'artst'; did you mean 'artist'?\n"))
    result = try sample.run(["ls", "--format", "{title}", "--json"])
    #expect(result.status == 64)
    #expect(result.stderr.hasPrefix("error: --json and --format cannot be combined\n"))
    result = try sample.run(["ls", "--format", "{title}", "-l"])
    #expect(result.status == 64)
    #expect(result.stderr.hasPrefix("error: --format and --long cannot be combined\n"))
  }

  /// The lines `ls` draws on a tmux terminal `width` columns wide, with their escapes, once
  /// it has exited 0.
  private func terminalLines(_ sample: IndexedSample, width: Int, environment: String, query: String) throws
    -> [String]
  {
    let script =
      "cd \(sample.root)/Documents && env -u COLUMNS \(environment) \(ShelfProcess.binary) --db '\(sample.database)' ls \(query); echo EXIT=$?; sleep 60"
    let tmux = try AudioE2E.Tmux(script, width: width, height: 20)
    #expect(tmux.waitFor("EXIT=").contains("EXIT=0"))
    let result = try AudioE2E.tool(["tmux", "-S", tmux.socket, "capture-pane", "-e", "-p", "-t", tmux.name])
    let lines = String(decoding: result.stdout, as: UTF8.self).split(separator: "\n").map(String.init)
    return Array(lines.prefix { !$0.contains("EXIT=") })
  }

  @Test(arguments: TestCatalogues.kinds) func terminalsGetAHeaderRowsFittedToTheWidthAndColourByKind(
    store: CatalogueStoreKind
  ) throws {
    let sample = try IndexedSample(store)
    let lines = try terminalLines(
      sample, width: 60, environment: "-u NO_COLOR -u LS_COLORS",
      query: "ext:flac,ext:plist area:documents,area:bundle")
    // A header; paths in their kind's colour, file names whole; the facts cut to fit 60
    // columns.
    #expect(
      lines == [
        "PATH                         KIND     SIZE  FACTS",
        "\u{1B}[33m../Demo.app/Info.plist\u{1B}[39m       plist   665 B  binary dictiona…",
        "\u{1B}[36m…/duet-repeated-artist.flac\u{1B}[39m  audio  35 KiB  0:01 flac 44100…",
        "\u{1B}[36mchord-stereo.flac\u{1B}[39m            audio  64 KiB  0:02 flac 44100…",
        "\u{1B}[33mrecent-items.plist\u{1B}[39m           plist   209 B  binary array",
        "\u{1B}[33msettings.plist\u{1B}[39m               plist   683 B  xml dictionary …",
      ])
  }

  @Test(arguments: TestCatalogues.kinds) func terminalsCutLongPathsInTheMiddleAndFollowLSColorsAndNOCOLOR(
    store: CatalogueStoreKind
  ) throws {
    let sample = try IndexedSample(store)
    var lines = try terminalLines(
      sample, width: 50, environment: "-u NO_COLOR LS_COLORS='*.plist=04'", query: "area:preferences")
    // tmux redraws SGR 04 followed by a reset as 4, then resets of each attribute. The folders
    // both rows start with give way first; the file names stay whole, and the facts and the
    // kind give way to them.
    #expect(
      lines == [
        "PATH                                        SIZE",
        "\u{1B}[4m…/com.example.shelfdemo.display.plist\u{1B}[0m\u{1B}[39m\u{1B}[49m      422 B",
        "\u{1B}[4m…/Preferences/com.example.shelfdemo.plist\u{1B}[0m\u{1B}[39m\u{1B}[49m  178 B",
      ])
    lines = try terminalLines(sample, width: 50, environment: "NO_COLOR=1", query: "area:preferences")
    #expect(
      lines == [
        "PATH                                        SIZE",
        "…/com.example.shelfdemo.display.plist      422 B",
        "…/Preferences/com.example.shelfdemo.plist  178 B",
      ])
  }
}
