import Foundation
import ShelfTestSupport
import Testing

@Suite struct ShowCommandTests {
  private func sample(_ relative: String) -> String {
    ShelfProcess.repositoryRoot.appendingPathComponent("SampleMedia/" + relative).path
  }

  @Test func textIsConvertedToUTF8FromEachEncoding() throws {
    for (file, encoding) in [
      ("Documents/Notes/cafe-latin1.txt", String.Encoding.isoLatin1),
      ("Documents/Notes/shopping-utf16le.txt", .utf16),
      ("Documents/Notes/welcome-utf8.txt", .utf8),
      ("Documents/Notes/readme-crlf.txt", .ascii),
    ] {
      let result = try ShelfProcess.run(["show", sample(file)])
      #expect(result.status == 0)
      let data = try Data(contentsOf: URL(fileURLWithPath: sample(file)))
      let expected = try #require(String(data: data, encoding: encoding))
      #expect(result.stdout == expected, "\(file)")
      #expect(result.stderr.isEmpty)
    }
  }

  @Test func plistIsPrettyPrinted() throws {
    let result = try ShelfProcess.run(["show", sample("Documents/settings.plist")])
    #expect(result.status == 0)
    #expect(
      result.stdout == """
        {
          "LastOpened" => 2024-05-01T12:00:00Z
          "Playlists" => [
            0 => {
              "Items" => [
                0 => "tone-440-mono.wav"
                1 => "chord-stereo.flac"
              ]
              "Name" => "Tones"
            }
            1 => {
              "Items" => []
              "Name" => "Everything"
            }
          ]
          "Shuffle" => false
          "Version" => 3
          "Volume" => 0.75
        }

        """)
  }

  @Test func binaryPlistAsJSON() throws {
    let result = try ShelfProcess.run([
      "show", "--json", sample("Library/Preferences/com.example.shelfdemo.plist"),
    ])
    #expect(result.status == 0)
    #expect(
      result.stdout == """
        {
          "AppleLanguages": [
            "en",
            "fr"
          ],
          "HasSeenOnboarding": true,
          "LastSync": "2024-05-01T12:00:00Z",
          "LaunchCount": 17,
          "PlaybackRate": 1.25,
          "Token": "3q2+7w=="
        }

        """)
  }

  /// What `shelf show ARGUMENTS` draws on a tmux terminal, with `environment` (env syntax),
  /// once it has exited 0.
  private func terminalScreen(_ arguments: String, environment: String) throws -> String {
    let script =
      "env -u COLUMNS \(environment) \(ShelfProcess.binary) show \(arguments); echo EXIT=$?; sleep 60"
    let tmux = try AudioE2E.Tmux(script, width: 80, height: 24)
    let screen = tmux.waitFor("EXIT=")
    #expect(screen.contains("EXIT=0"))
    return screen
  }

  @Test func imagePreviewWithoutColourUsesShades() throws {
    for environment in ["NO_COLOR=1", "-u NO_COLOR"] {
      let option = environment == "NO_COLOR=1" ? "" : "--color never"
      let screen = try terminalScreen(
        "\(option) --width 16 \(sample("Documents/checker-gray.png"))", environment: environment)
      #expect(
        screen.hasPrefix(
          """
            **..*#..##::%%
          **..**..##::#%-:
           .**..##::##::%%
          **..*#.:##::%%--
           .**..##::%%--%@
          **..##::#%:-%%--
          ..##::##::%%--%@
          ##.:##::%%--%@--
          32×32

          """), "\(environment): \(screen)")
    }
  }

  @Test func imagePreviewInTrueColourHalfBlocksWithColorAlways() throws {
    let result = try ShelfProcess.run(
      ["show", "--color", "always", "--width", "80", sample("Documents/holiday.jpg")],
      environment: ["COLORTERM": "truecolor"])
    #expect(result.status == 0)
    let lines = result.stdout.split(separator: "\n", omittingEmptySubsequences: false)
    // 32×24 pixels fit: 12 rows of 32 cells, each cell two pixels (▀: top fg, bottom bg).
    #expect(lines.count == 14)
    #expect(lines[12] == "32×24")
    for line in lines.prefix(12) {
      #expect(line.filter { $0 == "▀" }.count == 32)
      #expect(line.hasSuffix("\u{1B}[0m"))
    }
    #expect(lines[0].hasPrefix("\u{1B}[38;2;200;0;40m\u{1B}[48;2;200;0;40m▀"))
  }

  @Test func aPipeGetsPlainFactsAndNoEscapeSequences() throws {
    let path = sample("Documents/holiday.jpg")
    for options in [[], ["--color", "auto"], ["--color", "never"]] {
      let result = try ShelfProcess.run(["show"] + options + [path], environment: ["NO_COLOR": ""])
      #expect(result.status == 0)
      #expect(result.stdoutBytes == Array("\(path): image/png, 32×24\n".utf8), "\(options)")
    }
    let audio = try ShelfProcess.run(
      ["show", sample("Documents/tone-440-mono.wav")], environment: ["NO_COLOR": ""])
    #expect(audio.status == 0)
    #expect(!audio.stdoutBytes.contains(0x1B))
    let bad = try ShelfProcess.run(["show", "--color", "sometimes", path])
    #expect(bad.status == 64)
  }

  @Test(arguments: [
    "Documents/holiday.jpg", "Documents/tone-440-mono.wav", "Documents/Notes/welcome-utf8.txt",
    "Library/Application Support/index.bin",
  ])
  func jsonGivesTheFactsOfEveryKindAsInfoDoes(_ relative: String) throws {
    let scratch = try TemporaryDirectory()
    let database = scratch.path + "/none.sqlite"
    let shown = try ShelfProcess.run(["--db", database, "show", "--json", sample(relative)])
    let described = try ShelfProcess.run(["--db", database, "info", "--json", sample(relative)])
    #expect(shown.status == 0)
    #expect(shown.stderr.isEmpty)
    let record = try JSONSerialization.jsonObject(with: Data(shown.stdoutBytes)) as? NSDictionary
    let expected = try JSONSerialization.jsonObject(with: Data(described.stdoutBytes)) as? NSDictionary
    #expect(record != nil)
    #expect(record == expected)
  }

  @Test func jsonOfADamagedFileShowsWhatWasReadAndExits65() throws {
    let scratch = try TemporaryDirectory()
    let whole = try Data(contentsOf: URL(fileURLWithPath: sample("Documents/gradient-rgba.png")))
    let cut = try scratch.write("cut.png", Array(whole.prefix(40)))
    let result = try ShelfProcess.run(["show", "--json", cut])
    #expect(result.status == 65)
    #expect(result.stderr == "error: \(cut): truncated PNG: no IEND chunk\n")
    let record = try JSONSerialization.jsonObject(with: Data(result.stdoutBytes)) as? [String: Any]
    #expect(record?["error"] as? String == "truncated PNG: no IEND chunk")
    #expect((record?["image"] as? [String: Any])?["width"] as? Int == 64)
  }

  @Test func m4aAndVideoFactsAreShown() throws {
    let song = try ShelfProcess.run(["show", "--width", "42", sample("Documents/Music/morning-chord.m4a")])
    #expect(song.status == 0)
    #expect(song.stderr.isEmpty)
    let lines = song.stdout.split(separator: "\n").map(String.init)
    #expect(
      Array(lines.dropFirst().prefix(4)) == [
        "  mp4, AAC (Advanced Audio Coding), 44100 Hz, 2 channels",
        "  duration 0:02 (88200 frames)",
        "  codec aac, 127 kb/s, cover art",
        "  title: Morning Chord",
      ])
    #expect(lines.contains("  album artist: Shelf Ensemble"))
    #expect(lines.contains("  disc: 1/2"))
    let clip = try ShelfProcess.run(["show", sample("Documents/Camera/portrait-clip.mov")])
    #expect(clip.status == 0)
    let facts = clip.stdout.split(separator: "\n").map {
      $0.split(separator: " ", omittingEmptySubsequences: true)
    }
    #expect(facts.contains(["kind:", "video"]))
    #expect(facts.contains(["dimensions:", "320×240", "pixels"]))
    #expect(facts.contains(["rotation:", "90°"]))
    #expect(facts.contains(["sound:", "aac,", "48000", "Hz,", "1", "channel"]))
    #expect(facts.contains(["taken:", "2024-05-01T14:30:00+02:00"]))
  }

  @Test func audioSummaryAndWaveform() throws {
    // The waveform is terminal graphics: into this pipe it is drawn when asked for.
    let result = try ShelfProcess.run(
      ["show", "--graphics", "blocks", "--width", "42", sample("Documents/tone-440-mono.wav")])
    #expect(result.status == 0)
    let lines = result.stdout.split(separator: "\n").map(String.init)
    #expect(
      Array(lines.dropFirst().prefix(9)) == [
        "  wav, PCM signed 16-bit little-endian, 44100 Hz, 1 channel",
        "  duration 0:01 (44100 frames)",
        "  codec pcm_s16le, 706 kb/s",
        "  title: A440 Tone",
        "  artist: Shelf Test Signals",
        "  album: Shelf Sample Media",
        "  date: 2024",
        "  track: 1",
        "  genre: Test Tone",
      ])
    let waveform = try #require(lines.last)
    #expect(waveform.count == 42)
    // A steady tone has the same peak in every column.
    #expect(Set(waveform.dropFirst(2)).count == 1)
  }

  @Test func otherFilesAreSummarised() throws {
    let path = sample("Library/Application Support/index.bin")
    let result = try ShelfProcess.run(["show", path])
    #expect(result.status == 0)
    #expect(result.stdout == "\(path): application/octet-stream, 2.0 KiB; no preview for this kind of file\n")
  }

  @Test func missingAndEmptyFiles() throws {
    let scratch = try TemporaryDirectory()
    var result = try ShelfProcess.run(["show", scratch.path + "/none.txt"])
    #expect(result.status == 66)
    #expect(result.stderr == "error: \(scratch.path)/none.txt: no such file or directory\n")
    let empty = try scratch.write("empty.txt", [])
    result = try ShelfProcess.run(["show", empty])
    #expect(result.status == 65)
    #expect(result.stderr == "error: \(empty): file is empty\n")
  }

  @Test func damagedPlistIsOneLineError() throws {
    let scratch = try TemporaryDirectory()
    let broken = try scratch.write(
      "broken.plist", Array("<plist><dict><key>a</key><string>x</dict></plist>".utf8))
    let result = try ShelfProcess.run(["show", broken])
    #expect(result.status == 65)
    #expect(result.stderr == "error: \(broken): XML plist: expected </string>, found </dict>\n")
  }
}
