import Foundation
import ShelfAudio
import ShelfCore
import ShelfTestSupport
import Testing

/// FFmpeg as an independent tool for the decoder tests: it makes the files, and its own decode
/// (the same libavcodec decoders) is the reference for the samples.
enum FFmpegTool {
  /// Runs `ffmpeg`/`ffprobe` and returns stdout; fails the test on a non-zero exit.
  static func run(_ arguments: [String]) throws -> Data {
    let outcome = try ExternalTool.run(arguments)
    guard outcome.status == 0 else { throw FFmpegToolFailure(message: outcome.stderr) }
    return outcome.stdout
  }

  /// Makes `name` in `folder` from a 3-second stereo signal (a sweep with noise) with the
  /// given output options.
  static func make(
    _ folder: TemporaryDirectory, _ name: String, _ options: [String], seconds: Double = 3, rate: Int = 44100,
    channels: Int = 2
  ) throws -> String {
    let path = folder.file(name)
    let source =
      "aevalsrc=0.4*sin(2*PI*(200+400*t)*t)+0.1*(random(0)-0.5)|0.3*sin(2*PI*330*t):s=\(rate):d=\(seconds)"
    _ = try run(
      ["ffmpeg", "-v", "error", "-y", "-f", "lavfi", "-i", source, "-ac", "\(channels)"] + options + [path])
    return path
  }

  /// FFmpeg's decode of `path` as raw little-endian samples in `format` (`f32le`, `s16le`, `s32le`).
  static func decode(_ path: String, as format: String) throws -> [UInt8] {
    Array(try run(["ffmpeg", "-v", "error", "-i", path, "-map", "0:a:0", "-f", format, "-"]))
  }

  /// ffprobe's length of the first audio stream in frames (duration × rate).
  static func probedFrames(_ path: String) throws -> Int64 {
    let text = String(
      decoding: try run([
        "ffprobe", "-v", "error", "-select_streams", "a:0", "-show_entries", "stream=duration,sample_rate",
        "-of", "default=nw=1", path,
      ]), as: UTF8.self)
    var duration = 0.0
    var rate = 0.0
    for line in text.split(separator: "\n") {
      let parts = line.split(separator: "=")
      guard parts.count == 2 else { continue }
      if parts[0] == "duration" { duration = Double(parts[1]) ?? 0 }
      if parts[0] == "sample_rate" { rate = Double(parts[1]) ?? 0 }
    }
    return Int64((duration * rate).rounded())
  }
}

struct FFmpegToolFailure: Error, CustomStringConvertible {
  var message: String
  var description: String { message }
}

/// The bytes of `samples` as stored in memory (little-endian on every platform shelf runs on).
func rawBytes<T>(_ samples: [T]) -> [UInt8] {
  samples.withUnsafeBytes { Array($0) }
}

@Suite struct FFmpegDecoderTests {
  /// Decodes with shelf's chosen decoder in its natural sample type and returns the bytes.
  func decodeNatural(_ path: String) throws -> (bytes: [UInt8], decoder: any AudioDecoder) {
    let decoder = try AudioDecoders.open(path: RawPath(path))
    switch decoder.naturalSampleType {
    case .int16: return (rawBytes(try decoder.readAll(Int16.self)), decoder)
    case .int32: return (rawBytes(try decoder.readAll(Int32.self)), decoder)
    case .float32: return (rawBytes(try decoder.readAll(Float.self)), decoder)
    }
  }

  static func reference(_ type: PCMSampleType) -> String {
    switch type {
    case .int16: return "s16le"
    case .int32: return "s32le"
    case .float32: return "f32le"
    }
  }

  /// Formats libsndfile cannot read, each decoded exactly as FFmpeg decodes it, with the
  /// length ffprobe reports.
  @Test(arguments: [
    ("aac.m4a", ["-c:a", "aac", "-b:a", "128k"]),
    ("alac.m4a", ["-c:a", "alac"]),
    ("opus.mp4", ["-ar", "48000", "-c:a", "libopus", "-b:a", "96k"]),
    ("audio.wma", ["-c:a", "wmav2", "-b:a", "128k"]),
    ("audio.ac3", ["-c:a", "ac3", "-b:a", "192k"]),
    ("audio.wv", ["-c:a", "wavpack"]),
    ("audio.tta", ["-c:a", "tta"]),
    ("sound.mov", ["-c:a", "aac", "-b:a", "96k"]),
  ])
  func decodesExactlyAsFFmpeg(_ name: String, _ options: [String]) throws {
    let folder = try TemporaryDirectory()
    let path = try FFmpegTool.make(folder, name, options)
    let (bytes, decoder) = try decodeNatural(path)
    #expect(decoder is FFmpegDecoder)
    let reference = try FFmpegTool.decode(path, as: Self.reference(decoder.naturalSampleType))
    let frameBytes = decoder.format.channels * decoder.naturalSampleType.byteWidth
    let frames = Int64(bytes.count / frameBytes)
    if name.hasSuffix(".m4a") || name.hasSuffix(".mp4") || name.hasSuffix(".mov") {
      // MP4 declares its length to the sample (the edit list): the last AAC frame is trimmed
      // to it, where ffmpeg's tool hands it out whole.
      #expect(frames == decoder.format.frames)
      #expect(frames == (try FFmpegTool.probedFrames(path)))
      let samePrefix = bytes.count <= reference.count && bytes == Array(reference.prefix(bytes.count))
      #expect(samePrefix)
      #expect(reference.count - bytes.count < 2048 * frameBytes)
    } else {
      let same = bytes == reference
      #expect(same, "\(bytes.count) bytes decoded, ffmpeg decodes \(reference.count)")
    }
  }

  /// Lossless codecs keep the source's bits: ALAC of 16-bit audio decodes to the same samples
  /// as the WAV it was made from.
  @Test func alacDecodesToTheOriginalSamples() throws {
    let folder = try TemporaryDirectory()
    let wav = try FFmpegTool.make(folder, "source.wav", ["-c:a", "pcm_s16le"])
    let m4a = folder.file("alac.m4a")
    _ = try FFmpegTool.run(["ffmpeg", "-v", "error", "-i", wav, "-c:a", "alac", m4a])
    let decoder = try AudioDecoders.open(path: RawPath(m4a))
    #expect(decoder.naturalSampleType == .int16)
    #expect(decoder.format.isLossless)
    let original = try AudioDecoders.open(path: RawPath(wav)).readAll(Int16.self)
    let same = try decoder.readAll(Int16.self) == original
    #expect(same)
  }

  /// A seek lands on the exact sample: for lossless codecs what follows equals the full
  /// decode from there, bit for bit.
  @Test(arguments: [
    ("alac.m4a", "alac"), ("audio.wv", "wavpack"), ("audio.tta", "tta"), ("flac.mp4", "flac"),
  ])
  func seeksToTheExactSampleLosslessly(_ name: String, _ codec: String) throws {
    let folder = try TemporaryDirectory()
    let extra = codec == "flac" ? ["-strict", "-2"] : []
    let path = try FFmpegTool.make(folder, name, ["-c:a", codec] + extra)
    let whole = try AudioDecoders.open(path: RawPath(path)).readAll(Int16.self)
    let decoder = try AudioDecoders.open(path: RawPath(path))
    #expect(decoder is FFmpegDecoder)
    for target in [Int64(100_000), 44100, 12345, 0, 131_000] {
      try decoder.seek(toFrame: target)
      #expect(decoder.position == target)
      let block = try Self.readBlock(decoder, frames: 2048)
      let start = Int(target) * 2
      let expected = Array(whole[start..<min(whole.count, start + 4096)])
      let same = block == expected
      #expect(same, "after a seek to \(target)")
    }
  }

  /// Lossy decoders add noise of their own (AAC's noise substitution, AC-3's dither), so a
  /// seek cannot repeat the samples of a decode from the start; it must still land on the
  /// target sample: the block read there lines up with the full decode at the target and at
  /// no neighbouring offset.
  @Test(arguments: [("aac.m4a", "aac"), ("audio.ac3", "ac3"), ("opus.mp4", "libopus")])
  func seeksLossyStreamsToTheTargetSample(_ name: String, _ codec: String) throws {
    let folder = try TemporaryDirectory()
    let path = folder.file(name)
    _ = try FFmpegTool.run([
      "ffmpeg", "-v", "error", "-f", "lavfi", "-i", "aevalsrc=0.5*sin(2*PI*(300+300*t)*t):s=48000:d=4",
      "-ac", "2", "-c:a", codec, path,
    ])
    let whole = try AudioDecoders.open(path: RawPath(path)).readAll(Float.self)
    let decoder = try AudioDecoders.open(path: RawPath(path))
    try Self.expectSeeksLandOnTheTarget(decoder, whole: whole)
  }

  /// Seeks a stereo lossy stream to three targets: what follows each seek matches `whole` (the
  /// stream decoded from the start) best at exactly the target frame, and closely there.
  static func expectSeeksLandOnTheTarget(_ decoder: any AudioDecoder, whole: [Float]) throws {
    for target in [Int64(150_000), 48000, 12345] {
      try decoder.seek(toFrame: target)
      #expect(decoder.position == target)
      let block = try Self.readBlock(decoder, frames: 2048, as: Float.self)
      func error(at frame: Int) -> Double {
        var sum = 0.0
        for index in 0..<block.count { sum += Double(abs(block[index] - whole[frame * 2 + index])) }
        return sum / Double(block.count)
      }
      let errors = (-3...3).map { error(at: Int(target) + $0) }
      #expect(errors[3] < 0.01, "after a seek to \(target): mean error \(errors[3])")
      #expect(errors.min() == errors[3], "after a seek to \(target): \(errors)")
    }
  }

  /// AAC in CAF, wrapped by scripts/make-caf-aac.py around FFmpeg's AAC packets (no Debian
  /// program writes it): the packet table's 1,024 frames of priming and the last packet's
  /// remainder are not part of the stream (FFmpeg 5.1 hands them out), and a seek lands on the
  /// target counted from the first valid frame.
  @Test func aacInCAFTrimsItsPrimingAndSeeksToTheTarget() throws {
    let folder = try TemporaryDirectory()
    let adts = folder.file("memo.aac")
    let caf = folder.file("memo.caf")
    _ = try FFmpegTool.run([
      "ffmpeg", "-v", "error", "-f", "lavfi", "-i", "aevalsrc=0.5*sin(2*PI*(300+300*t)*t):s=48000:d=4",
      "-ac", "2", "-c:a", "aac", "-f", "adts", adts,
    ])
    let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
      .deletingLastPathComponent().appendingPathComponent("scripts/make-caf-aac.py").path
    _ = try FFmpegTool.run(["python3", script, adts, caf, "--frames", "192000"])
    let decoder = try AudioDecoders.open(path: RawPath(caf))
    #expect(decoder is FFmpegDecoder)
    #expect(decoder.format.frames == 192_000)
    let whole = try decoder.readAll(Float.self)
    let reference = try FFmpegTool.decode(caf, as: "f32le")
    let frameBytes = 2 * 4
    let expected = Array(reference.dropFirst(1024 * frameBytes).prefix(192_000 * frameBytes))
    #expect(expected.count == 192_000 * frameBytes)
    let same = rawBytes(whole) == expected
    #expect(same, "\(whole.count / 2) frames decoded")

    try Self.expectSeeksLandOnTheTarget(decoder, whole: whole)
  }

  static func readBlock<T: AudioSample>(_ decoder: any AudioDecoder, frames: Int, as _: T.Type = Int16.self)
    throws -> [T]
  {
    var block = [T](repeating: T.zero, count: frames * decoder.format.channels)
    let got = try block.withUnsafeMutableBytes {
      try decoder.read(into: $0.baseAddress!, frames: frames, as: T.sampleType)
    }
    return Array(block[0..<(got * decoder.format.channels)])
  }

  /// Asking for another sample type than the codec's converts through libswresample.
  @Test func convertsToTheTypeTheDeviceTakes() throws {
    let folder = try TemporaryDirectory()
    let path = try FFmpegTool.make(folder, "aac.m4a", ["-c:a", "aac"])
    let decoder = try AudioDecoders.open(path: RawPath(path))
    #expect(decoder.naturalSampleType == .float32)
    let samples = try decoder.readAll(Int16.self)
    let reference = try FFmpegTool.decode(path, as: "s16le")
    let same = rawBytes(samples) == Array(reference.prefix(samples.count * 2))
    #expect(same)
  }

  /// iTunes' gapless comment trims the encoder delay and padding of a file without an edit list.
  @Test(.enabled(if: FFmpegDecoderTests.hasMutagen, "needs the mutagen Python package (pip install mutagen)"))
  func iTunesGaplessCommentTrimsDelayAndPadding() throws {
    let folder = try TemporaryDirectory()
    let path = try FFmpegTool.make(folder, "smpb.m4a", ["-c:a", "aac", "-use_editlist", "0"], seconds: 2)
    let untrimmed = try AudioDecoders.open(path: RawPath(path)).readAll(Float.self)
    // ffmpeg's AAC encoder delays by 1024 frames; 2 s at 44.1 kHz is 88200 frames.
    let smpb = " 00000000 00000400 00000000 0000000000015888 00000000 00000000 00000000 00000000"
    _ = try FFmpegTool.run([
      "python3", "-c",
      "import mutagen.mp4,sys; f=mutagen.mp4.MP4(sys.argv[1]); "
        + "f['----:com.apple.iTunes:iTunSMPB']=[mutagen.mp4.MP4FreeForm(sys.argv[2].encode())]; f.save()",
      path, smpb,
    ])
    let decoder = try AudioDecoders.open(path: RawPath(path))
    #expect(decoder.format.frames == 88200)
    let trimmed = try decoder.readAll(Float.self)
    #expect(trimmed.count == 88200 * 2)
    let same = trimmed == Array(untrimmed[(1024 * 2)..<((1024 + 88200) * 2)])
    #expect(same)
  }

  static let hasMutagen: Bool = {
    (try? FFmpegTool.run(["python3", "-c", "import mutagen"])) != nil
  }()

  /// A video without sound is not playable audio: one line, bad data.
  @Test func aVideoWithoutSoundHasNoAudioTrack() throws {
    let folder = try TemporaryDirectory()
    let path = folder.file("silent.mov")
    _ = try FFmpegTool.run([
      "ffmpeg", "-v", "error", "-f", "lavfi", "-i", "testsrc=duration=1:size=64x48", "-c:v", "mpeg4", path,
    ])
    #expect(throws: AudioError(path: RawPath(path), reason: .noAudioTrack, message: "no audio track")) {
      try AudioDecoders.open(path: RawPath(path))
    }
  }

  /// The decoder follows the content, not the name: an M4A called .wav and a WAV called .m4a.
  @Test func theContentChoosesTheDecoder() throws {
    let folder = try TemporaryDirectory()
    let m4a = try FFmpegTool.make(folder, "a.m4a", ["-c:a", "alac"])
    let wav = try FFmpegTool.make(folder, "b.wav", ["-c:a", "pcm_s16le"])
    try FileManager.default.moveItem(atPath: m4a, toPath: folder.file("lies.wav"))
    try FileManager.default.moveItem(atPath: wav, toPath: folder.file("lies.m4a"))
    #expect(try AudioDecoders.open(path: folder.raw("lies.wav")) is FFmpegDecoder)
    #expect(try AudioDecoders.open(path: folder.raw("lies.m4a")) is AudioFileReader)
  }
}
