import ShelfAudio
import ShelfCore
import ShelfTestSupport
import Testing

/// The peaks behind `show`'s waveform line, on samples whose peak per block is known.
@Suite struct AudioWaveformTests {
  /// Four blocks of 4,096 mono frames (one read each) peaking at ½, ¼ (negative), full scale
  /// (negative) and silence.
  private static func fourBlocks(in folder: TemporaryDirectory) throws -> RawPath {
    var samples: [Int16] = []
    for peak: Int16 in [16384, -8192, -32768, 0] {
      var block = [Int16](repeating: peak / 4, count: 4096)
      block[1000] = peak
      samples += block
    }
    let path = folder.raw("blocks.wav")
    try writeWAV16(folder.file("blocks.wav"), samples, rate: 8000, channels: 1)
    return path
  }

  @Test func peaksAreTheLoudestSampleOfEachColumn() throws {
    let folder = try TemporaryDirectory()
    let path = try Self.fourBlocks(in: folder)
    #expect(try AudioWaveform.peaks(path: path, columns: 4) == [0.5, 0.25, 1, 0])
    #expect(try AudioWaveform.peaks(path: path, columns: 8) == [0.5, 0.5, 0.25, 0.25, 1, 1, 0, 0])
    #expect(try AudioWaveform.peaks(path: path, columns: 2) == [0.5, 1])
  }

  @Test func aFileThatIsNotAudioHasNoPeaks() throws {
    let folder = try TemporaryDirectory()
    let path = folder.raw("image.wav")
    writeBytes(folder.file("image.wav"), tinyPNG)
    #expect(throws: AudioError.self) { try AudioWaveform.peaks(path: path, columns: 4) }
  }
}
