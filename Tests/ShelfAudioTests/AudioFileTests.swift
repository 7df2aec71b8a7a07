import Dispatch
import ShelfAudio
import ShelfCore
import ShelfTestSupport
import Synchronization
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// Writes `signal` to a new file of `container` in `folder`, closes it and opens it again.
private func writeAndReopen<Sample: AudioSample>(
  _ signal: [Sample], in folder: TemporaryDirectory, container: AudioContainer,
  sampleFormat: SampleFormat, sampleRate: Int, channels: Int
) throws -> AudioFileReader {
  let path = folder.raw("signal.\(container.rawValue)")
  let writer = try AudioFileWriter(
    path: path, container: container, sampleFormat: sampleFormat, sampleRate: sampleRate,
    channels: channels)
  try writer.write(signal)
  try writer.close()
  return try AudioFileReader(path: path)
}

@Suite struct AudioFileTests {
  @Test(arguments: [AudioContainer.wav, .aiff, .flac, .caf, .w64, .au])
  func sixteenBitRoundTripIsExact(container: AudioContainer) throws {
    let folder = try TemporaryDirectory()
    let signal = testSignal16(frames: 10_000)
    let reader = try writeAndReopen(
      signal, in: folder, container: container, sampleFormat: .s16, sampleRate: 44100, channels: 2)
    #expect(reader.format.sampleRate == 44100)
    #expect(reader.format.channels == 2)
    #expect(reader.format.frames == 10_000)
    #expect(reader.naturalSampleType == .int16)
    #expect(reader.format.isLossless)
    let decoded: [Int16] = try reader.readAll()
    #expect(decoded == signal)
  }

  @Test(arguments: [AudioContainer.wav, .flac, .aiff, .caf])
  func twentyFourBitRoundTripIsExact(container: AudioContainer) throws {
    let folder = try TemporaryDirectory()
    let signal = testSignal24(frames: 5000)
    let reader = try writeAndReopen(
      signal, in: folder, container: container, sampleFormat: .s24, sampleRate: 48000, channels: 2)
    #expect(reader.format.bitsPerSample == 24)
    #expect(reader.naturalSampleType == .int32)
    let decoded: [Int32] = try reader.readAll()
    #expect(decoded == signal)
  }

  @Test func floatWAVRoundTripIsExact() throws {
    let folder = try TemporaryDirectory()
    let signal = sine(frames: 3000, channels: 1)
    let reader = try writeAndReopen(
      signal, in: folder, container: .wav, sampleFormat: .float, sampleRate: 22050, channels: 1)
    #expect(reader.naturalSampleType == .float32)
    #expect(reader.format.encodingName == "32 bit float")
    let decoded: [Float] = try reader.readAll()
    #expect(decoded == signal)
  }

  @Test func wavIsPlainRIFFWithHeaderKeptCurrentWhileWriting() throws {
    let folder = try TemporaryDirectory()
    let path = folder.file("live.wav")
    let writer = try AudioFileWriter(
      path: RawPath(path), container: .wav, sampleFormat: .s16, sampleRate: 44100, channels: 2)
    try writer.write(testSignal16(frames: 1000))
    // Not closed yet: another reader must already see every frame.
    let bytes = readBytes(path)
    #expect(Array(bytes[0..<4]) == Array("RIFF".utf8))
    let reader = try AudioFileReader(path: RawPath(path))
    #expect(reader.format.frames == 1000)
    try writer.close()
    let reader2 = try AudioFileReader(path: RawPath(path))
    #expect(reader2.format.frames == 1000)
    #expect(reader2.format.formatName.hasPrefix("WAV"))
  }

  @Test func lossyFormatsEncodeAndDecodeInBlocks() throws {
    let folder = try TemporaryDirectory()
    for (container, rate) in [(AudioContainer.ogg, 44100), (.opus, 48000), (.mp3, 44100)] {
      let path = folder.raw("l.\(container.rawValue)")
      let signal = sine(frames: rate, rate: rate)  // one second, written in one call
      let writer = try AudioFileWriter(
        path: path, container: container, sampleFormat: .s16, sampleRate: rate, channels: 2)
      try writer.write(signal)
      try writer.close()
      let reader = try AudioFileReader(path: path)
      #expect(!reader.format.isLossless)
      let decoded: [Float] = try reader.readAll()
      #expect(abs(decoded.count / 2 - rate) < rate / 10, "\(container): \(decoded.count / 2) frames")
      let info = try AudioFileInfo.read(path: path)
      #expect(abs(info.duration - 1) < 0.1, "\(container): \(info.duration)")
    }
  }

  @Test func tagsAreWrittenAndReadBack() throws {
    let folder = try TemporaryDirectory()
    let tags = AudioTags(
      title: "Señal", artist: "Shelf Band", album: "Tests", date: "2024", track: "3", genre: "Ambient",
      comment: "hello")
    for container in [AudioContainer.wav, .flac, .ogg] {
      let path = folder.raw("t.\(container.rawValue)")
      let writer = try AudioFileWriter(
        path: path, container: container, sampleFormat: .s16, sampleRate: 44100, channels: 2, tags: tags)
      try writer.write(testSignal16(frames: 4410))
      try writer.close()
      let info = try AudioFileInfo.read(path: path)
      #expect(info.tags.title == "Señal", "\(container)")
      #expect(info.tags.artist == "Shelf Band", "\(container)")
      #expect(info.tags.album == "Tests", "\(container)")
      #expect(abs(info.duration - 0.1) < 0.001)
    }
  }

  @Test func id3v2TagsOfMP3AreRead() throws {
    let folder = try TemporaryDirectory()
    let plain = folder.file("plain.mp3")
    let writer = try AudioFileWriter(
      path: RawPath(plain), container: .mp3, sampleFormat: .s16, sampleRate: 44100, channels: 2)
    try writer.write(sine(frames: 44100))
    try writer.close()
    func frame(_ id: String, _ text: String) -> [UInt8] {
      let body: [UInt8] = [3] + Array(text.utf8)
      let n = body.count
      return Array(id.utf8) + [
        UInt8(n >> 24), UInt8(n >> 16 & 0xFF), UInt8(n >> 8 & 0xFF), UInt8(n & 0xFF), 0, 0,
      ] + body
    }
    let frames =
      frame("TIT2", "Über Song") + frame("TPE1", "Artist") + frame("TALB", "Album") + frame("TRCK", "7/9")
      + frame("TCON", "(17)") + frame("TYER", "1999")
    let size = frames.count
    let header: [UInt8] =
      Array("ID3".utf8) + [
        3, 0, 0, UInt8(size >> 21 & 0x7F), UInt8(size >> 14 & 0x7F), UInt8(size >> 7 & 0x7F),
        UInt8(size & 0x7F),
      ]
    var audio = readBytes(plain)
    if audio.starts(with: Array("ID3".utf8)) {
      let existing = 10 + Int(audio[6]) << 21 + Int(audio[7]) << 14 + Int(audio[8]) << 7 + Int(audio[9])
      audio.removeFirst(existing)
    }
    let tagged = folder.file("tagged.mp3")
    writeBytes(tagged, header + frames + audio)
    let info = try AudioFileInfo.read(path: RawPath(tagged))
    #expect(
      info.tags
        == AudioTags(
          title: "Über Song", artist: "Artist", album: "Album", date: "1999", track: "7/9", genre: "Rock",
          trackTotal: 9))
    #expect(abs(info.duration - 1) < 0.1)
    #expect(info.sampleRate == 44100)
  }

  @Test func missingFileIsMissingInput() throws {
    let folder = try TemporaryDirectory()
    let error = #expect(throws: AudioError.self) { try AudioFileReader(path: folder.raw("nope.wav")) }
    #expect(error?.reason == .missingFile)
    #expect(error?.failure == .missingInput)
    #expect(error?.description == "\(folder.file("nope.wav")): no such file or directory")
  }

  @Test func folderIsNotAudio() throws {
    let folder = try TemporaryDirectory()
    let error = #expect(throws: AudioError.self) { try AudioFileReader(path: RawPath(folder.path)) }
    #expect(error?.description == "\(folder.path): is a directory")
  }

  @Test func anOpenFileIsDecodedEvenAfterItsNameIsTaken() throws {
    let folder = try TemporaryDirectory()
    let signal = testSignal16(frames: 4096)
    let path = folder.raw("song.wav")
    let writer = try AudioFileWriter(
      path: path, container: .wav, sampleFormat: .s16, sampleRate: 8000, channels: 2)
    try writer.write(signal)
    try writer.close()
    let file = try RegularFile(path: path)
    // The name now leads to a FIFO, which would block anything that opened the path again.
    #expect(unlink(folder.file("song.wav")) == 0)
    #expect(mkfifo(folder.file("fifo"), 0o600) == 0)
    #expect(symlink("fifo", folder.file("song.wav")) == 0)
    let reader = try AudioFileReader(file: file)
    #expect(reader.format.frames == 4096)
    #expect(try reader.readAll(Int16.self) == signal)
  }

  @Test func emptyFileIsBadInput() throws {
    let folder = try TemporaryDirectory()
    writeBytes(folder.file("empty.wav"), [])
    let error = #expect(throws: AudioError.self) { try AudioFileReader(path: folder.raw("empty.wav")) }
    #expect(error?.reason == .emptyFile)
    #expect(error?.failure == .badInput)
    #expect(error?.description == "\(folder.file("empty.wav")): empty file")
  }

  @Test func concurrentOpensEachReportTheirOwnFailure() throws {
    // libsndfile keeps the reason of a failed open in process-wide state: opens on other
    // threads (good files among them) must not change what this one reports. (A stress test:
    // without the turn-taking in SndFile.open it fails in most runs, not in every one.)
    let folder = try TemporaryDirectory()
    writeBytes(folder.file("image.wav"), tinyPNG)
    let good = folder.raw("good.wav")
    let writer = try AudioFileWriter(
      path: good, container: .wav, sampleFormat: .s16, sampleRate: 8000, channels: 1)
    try writer.write([Int16](repeating: 7, count: 800))
    try writer.close()
    let image = folder.raw("image.wav")
    let reports = Mutex<[String]>([])
    DispatchQueue.concurrentPerform(iterations: 10_000) { index in
      if index % 2 == 0 {
        _ = try? AudioFileReader(path: good)
      } else {
        do {
          _ = try AudioFileReader(path: image)
          reports.withLock { $0.append("opened") }
        } catch {
          reports.withLock { $0.append("\(error)") }
        }
      }
    }
    let expected = "\(folder.file("image.wav")): not an audio file (it is a PNG image)"
    let reported = reports.withLock { $0 }
    let wrong = reported.filter { $0 != expected }
    #expect(reported.count == 5_000)
    #expect(wrong.isEmpty, "\(wrong.count) opens reported another failure, e.g. \(wrong.first ?? "")")
  }

  @Test func pngNamedWAVIsRecognised() throws {
    let folder = try TemporaryDirectory()
    writeBytes(folder.file("image.wav"), tinyPNG)
    let error = #expect(throws: AudioError.self) { try AudioFileReader(path: folder.raw("image.wav")) }
    #expect(error?.reason == .unrecognised)
    #expect(error?.failure == .badInput)
    #expect(error?.description == "\(folder.file("image.wav")): not an audio file (it is a PNG image)")
  }

  @Test func randomBytesAreNotAudio() throws {
    let folder = try TemporaryDirectory()
    writeBytes(folder.file("noise.flac"), littleEndianBytes(testSignal16(frames: 500)))
    let error = #expect(throws: AudioError.self) { try AudioFileReader(path: folder.raw("noise.flac")) }
    #expect(error?.failure == .badInput)
  }

  @Test func truncatedHeaderIsDamaged() throws {
    let folder = try TemporaryDirectory()
    try writeWAV16(folder.file("full.wav"), testSignal16(frames: 100))
    writeBytes(folder.file("cut.wav"), Array(readBytes(folder.file("full.wav")).prefix(20)))
    let error = #expect(throws: AudioError.self) { try AudioFileReader(path: folder.raw("cut.wav")) }
    #expect(error?.failure == .badInput)
  }

  /// The offset of the first sample byte of a RIFF/RF64 file's `data` chunk.
  private static func dataOffset(_ bytes: [UInt8]) throws -> Int {
    let id = Array("data".utf8)
    let start = try #require((12..<(bytes.count - 8)).first { Array(bytes[$0..<($0 + 4)]) == id })
    return start + 8
  }

  @Test func wavCutShortReportsTheFramesPresentAndItsTruncation() throws {
    let folder = try TemporaryDirectory()
    let signal = testSignal16(frames: 1000)
    try writeWAV16(folder.file("full.wav"), signal)
    let full = readBytes(folder.file("full.wav"))
    let offset = try Self.dataOffset(full)
    writeBytes(folder.file("cut.wav"), Array(full.prefix(offset + 1000)))

    let reader = try AudioFileReader(path: folder.raw("cut.wav"))
    #expect(reader.format.frames == 250)
    let samples: [Int16] = try reader.readAll()
    #expect(samples == Array(signal.prefix(500)))
    let expected = "\(folder.file("cut.wav")): truncated: data chunk declares 4000 bytes, file holds 1000"
    #expect(reader.defect?.description == expected)
    #expect(reader.defect?.failure == .badInput)
    let info = try AudioFileInfo.read(path: folder.raw("cut.wav"))
    #expect(info.frames == 250)
    #expect(info.defect?.description == expected)

    #expect(try AudioFileInfo.read(path: folder.raw("full.wav")).defect == nil)
  }

  @Test func wavWithItsLengthMarkedUnknownIsNotTruncated() throws {
    // Tools that stream a WAV to a pipe write 0xFFFFFFFF as the data size.
    let folder = try TemporaryDirectory()
    try writeWAV16(folder.file("full.wav"), testSignal16(frames: 100))
    var bytes = readBytes(folder.file("full.wav"))
    let offset = try Self.dataOffset(bytes)
    bytes.replaceSubrange((offset - 4)..<offset, with: [0xFF, 0xFF, 0xFF, 0xFF])
    writeBytes(folder.file("streamed.wav"), bytes)
    let info = try AudioFileInfo.read(path: folder.raw("streamed.wav"))
    #expect(info.frames == 100)
    #expect(info.defect == nil)
  }

  @Test func rf64CutShortIsTruncatedByItsDS64Size() throws {
    func le(_ value: Int, _ count: Int) -> [UInt8] {
      (0..<count).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) }
    }
    let declared = 4000
    let present = 1000
    let fmt =
      Array("fmt ".utf8) + le(16, 4) + le(1, 2) + le(2, 2) + le(44100, 4) + le(176_400, 4) + le(4, 2)
      + le(16, 2)
    let ds64 =
      Array("ds64".utf8) + le(28, 4) + le(4 + 36 + fmt.count + 8 + declared, 8) + le(declared, 8)
      + le(1000, 8) + le(0, 4)
    let header = Array("RF64".utf8) + [0xFF, 0xFF, 0xFF, 0xFF] + Array("WAVE".utf8) + ds64 + fmt
    let bytes =
      header + Array("data".utf8) + [0xFF, 0xFF, 0xFF, 0xFF]
      + littleEndianBytes(testSignal16(frames: present / 4))
    let folder = try TemporaryDirectory()
    writeBytes(folder.file("cut.wav"), bytes)
    let info = try AudioFileInfo.read(path: folder.raw("cut.wav"))
    #expect(info.frames == 250)
    #expect(
      info.defect?.description
        == "\(folder.file("cut.wav")): truncated: data chunk declares 4000 bytes, file holds 1000")
  }

  @Test func truncatedFLACStopsWithAnError() throws {
    let folder = try TemporaryDirectory()
    let writer = try AudioFileWriter(
      path: folder.raw("full.flac"), container: .flac, sampleFormat: .s16, sampleRate: 44100, channels: 2)
    try writer.write(testSignal16(frames: 44100))
    try writer.close()
    let bytes = readBytes(folder.file("full.flac"))
    writeBytes(folder.file("cut.flac"), Array(bytes.prefix(bytes.count / 2)))
    let reader = try AudioFileReader(path: folder.raw("cut.flac"))
    #expect(reader.format.frames == 44100)
    let error = #expect(throws: AudioError.self) { let _: [Int16] = try reader.readAll() }
    #expect(error?.reason == .damaged)
    #expect(error?.failure == .badInput)
  }

  @Test func writerRefusesToOverwriteUnlessAsked() throws {
    let folder = try TemporaryDirectory()
    try writeWAV16(folder.file("x.wav"), testSignal16(frames: 10))
    let error = #expect(throws: AudioError.self) {
      try AudioFileWriter(
        path: folder.raw("x.wav"), container: .wav, sampleFormat: .s16, sampleRate: 44100, channels: 2)
    }
    #expect(error?.reason == .exists)
    #expect(error?.failure == .cannotCreate)
    #expect(try AudioFileReader(path: folder.raw("x.wav")).format.frames == 10)
    let writer = try AudioFileWriter(
      path: folder.raw("x.wav"), container: .wav, sampleFormat: .s16, sampleRate: 44100, channels: 2,
      overwrite: true)
    try writer.write(testSignal16(frames: 3))
    try writer.close()
    #expect(try AudioFileReader(path: folder.raw("x.wav")).format.frames == 3)
  }

  @Test func writerRejectsImpossibleFormats() throws {
    let folder = try TemporaryDirectory()
    let error = #expect(throws: AudioError.self) {
      try AudioFileWriter(
        path: folder.raw("x.flac"), container: .flac, sampleFormat: .s16, sampleRate: 44100, channels: 20)
    }
    #expect(error?.reason == .unsupported)
    #expect((try? FileStatus.lstat(folder.raw("x.flac"))) == nil)
  }

  @Test func seekingLandsOnTheFrame() throws {
    let folder = try TemporaryDirectory()
    let signal = testSignal16(frames: 20_000)
    try writeWAV16(folder.file("s.wav"), signal)
    let reader = try AudioFileReader(path: folder.raw("s.wav"))
    try reader.seek(toFrame: 12_345)
    let rest: [Int16] = try reader.readAll()
    #expect(rest == Array(signal[(12_345 * 2)...]))
  }

  @Test func containerFromExtension() {
    #expect(AudioContainer(extensionOf: RawPath("a/B.WAV")) == .wav)
    #expect(AudioContainer(extensionOf: RawPath("x.oga")) == .ogg)
    #expect(AudioContainer(extensionOf: RawPath("x.png")) == nil)
    #expect(AudioContainer.flac.storedFormat(for: .s32) == .s24)
  }

  @Test(arguments: [AudioContainer.mp3, .ogg, .flac])
  func seekingCompressedFilesMatchesDecodingStraightThrough(container: AudioContainer) throws {
    let folder = try TemporaryDirectory()
    let path = folder.raw("s.\(container.rawValue)")
    let writer = try AudioFileWriter(
      path: path, container: container, sampleFormat: .s16, sampleRate: 44100, channels: 2)
    try writer.write(sine(frames: 88200))
    try writer.close()
    let whole: [Float] = try AudioFileReader(path: path).readAll()
    for target in [30_000, 70_000, 87_000] {
      let reader = try AudioFileReader(path: path)
      try reader.seek(toFrame: Int64(target))
      #expect(reader.position == Int64(target))
      let rest: [Float] = try reader.readAll()
      let count = min(2000, rest.count / 2, whole.count / 2 - target) * 2
      let expected = Array(whole[(target * 2)..<(target * 2 + count)])
      let maxError = zip(rest.prefix(count), expected).map { abs($0 - $1) }.max() ?? 1
      #expect(maxError < 1e-4, "\(container) at \(target): \(maxError)")
    }
  }

  @Test func audioIsDecodedByContentWhateverItsName() throws {
    let folder = try TemporaryDirectory()
    let signal = testSignal16(frames: 3000)
    // FLAC content under a .wav name.
    let writer = try AudioFileWriter(
      path: folder.raw("really-flac.wav"), container: .flac, sampleFormat: .s16, sampleRate: 44100,
      channels: 2)
    try writer.write(signal)
    try writer.close()
    let reader = try AudioFileReader(path: folder.raw("really-flac.wav"))
    #expect(reader.format.formatName.hasPrefix("FLAC"))
    let decoded: [Int16] = try reader.readAll()
    #expect(decoded == signal)
  }

  /// Writes 4 GiB: run with SHELF_SLOW_TESTS=1.
  @Test(.enabled(if: getenv("SHELF_SLOW_TESTS") != nil))
  func wavBecomesRF64PastFourGiB() throws {
    let folder = try TemporaryDirectory()
    let path = folder.raw("big.wav")
    let writer = try AudioFileWriter(
      path: path, container: .wav, sampleFormat: .s16, sampleRate: 44100, channels: 2)
    let block = [Int16](repeating: 1, count: 1 << 21)
    var frames: Int64 = 0
    while frames * 4 < (4 << 30) + (16 << 20) {
      try writer.write(block)
      frames += Int64(block.count / 2)
    }
    try writer.close()
    #expect(Array(readBytes(folder.file("big.wav"), limit: 4)) == Array("RF64".utf8))
    #expect(try AudioFileReader(path: path).format.frames == frames)
  }
}
