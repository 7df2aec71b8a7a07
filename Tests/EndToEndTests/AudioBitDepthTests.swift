import Foundation
import ShelfTestSupport
import Testing

/// An audio file's bit depth (issue 45: the fact added as the fact table intends, one row): a
/// 24-bit FLAC and a 16-bit WAV made by FFmpeg give `depth:24`, `{bit_depth}`, `info`'s line and
/// `--json`'s key as ffprobe reads them (`bits_per_raw_sample`, `bits_per_sample`); an MP3 has none.
@Suite struct AudioBitDepthTests {
  static func catalogue() throws -> IndexedRoot {
    try IndexedRoot { _, root in
      let tone = ["ffmpeg", "-v", "error", "-f", "lavfi", "-i", "sine=frequency=440:duration=0.3"]
      try ExternalTool.make(
        tone + ["-c:a", "flac", "-sample_fmt", "s32", "-bits_per_raw_sample", "24", root + "/deep.flac"])
      try ExternalTool.make(tone + ["-c:a", "pcm_s16le", root + "/plain.wav"])
      try ExternalTool.make(tone + ["-c:a", "libmp3lame", root + "/lossy.mp3"])
    }
  }

  @Test func depthIsQueriedListedShownAndPrinted() throws {
    let catalogue = try Self.catalogue()
    let deep = try catalogue.run(["ls", "-f", "{name}", "depth:24"])
    #expect(deep.status == 0, "\(deep.stderr)")
    #expect(deep.stdout == "deep.flac\n")
    let all = try catalogue.run(["ls", "-f", "{name} {bit_depth} {depth}", "kind:audio"])
    #expect(all.stdout == "deep.flac 24 24\nlossy.mp3  \nplain.wav 16 16\n")
    let info = try catalogue.run(["info", catalogue.root + "/deep.flac"])
    #expect(info.stdout.contains("\nbit depth:    24\n"), "\(info.stdout)")
    let json = try catalogue.run(["ls", "--json", "name:plain.wav"])
    #expect(json.stdout.contains(#""bit_depth":16"#), "\(json.stdout)")
    let mp3 = try catalogue.run(["ls", "--json", "name:lossy.mp3"])
    #expect(mp3.stdout.contains(#""bit_depth":null"#), "\(mp3.stdout)")
  }
}
