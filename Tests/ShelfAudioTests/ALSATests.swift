import ShelfAudio
import ShelfCore
import ShelfTestSupport
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// ALSA without a sound card: playback into alsa-lib's `file` plugin, capture from a file fed
/// through a configuration that includes the system's and adds `shelftestcapture`.
enum TestALSA {
  static let folder = try! TemporaryDirectory.forProcess()
  static var captureInput: String { folder.file("capture-input.raw") }

  /// Points ALSA at the test configuration; must run before the process's first ALSA call.
  static let configured: Bool = {
    let config = """
      </usr/share/alsa/alsa.conf>
      pcm.shelftestcapture {
        type file
        slave.pcm { type null }
        file "/dev/null"
        infile "\(folder.file("capture-input.raw"))"
        format "raw"
      }
      """
    writeBytes(folder.file("asound.conf"), Array(config.utf8))
    setenv("ALSA_CONFIG_PATH", folder.file("asound.conf"), 1)
    return true
  }()

  static func fileDevice(_ path: String) -> String { "file:'\(path)',raw" }
}

@Suite(.serialized) struct ALSATests {
  init() { #expect(TestALSA.configured) }

  @Test func playbackReachesALSABitExactAndPadsTheLastPeriod() throws {
    let folder = try TemporaryDirectory()
    let signal = testSignal16(frames: 10_001)
    let output = try ALSAPlayback(
      device: TestALSA.fileDevice(folder.file("out.raw")), sampleRate: 44100, channels: 2,
      sampleTypes: [.int16])
    #expect(output.parameters.sampleType == .int16)
    try signal.withUnsafeBytes { try output.write($0.baseAddress!, frames: 10_001) }
    try output.padToPeriod()
    output.drain()
    output.close()
    let played = readBytes(folder.file("out.raw"))
    let expected = littleEndianBytes(signal)
    #expect(Array(played.prefix(expected.count)) == expected)
    #expect(played.dropFirst(expected.count).allSatisfy { $0 == 0 })
    let period = output.parameters.periodFrames * 4
    #expect(played.count % period == 0)
    #expect(played.count - expected.count < period)
  }

  @Test func unknownDeviceIsNamed() throws {
    let error = #expect(throws: AudioError.self) {
      try ALSAPlayback(device: "nosuchdevice", sampleRate: 44100, channels: 2, sampleTypes: [.int16])
    }
    #expect(error?.reason == .noSuchDevice)
    #expect(error?.failure == .missingInput)
    #expect(error?.description == "device nosuchdevice: no such ALSA device")
    let missingCard = #expect(throws: AudioError.self) {
      try ALSACapture(device: "hw:7,0", sampleRate: 44100, channels: 2, sampleFormat: .s16)
    }
    #expect(missingCard?.failure == .missingInput)
  }

  @Test func captureFromFileIsExact() throws {
    let signal = testSignal16(frames: 20_000, seed: 3)
    writeBytes(TestALSA.captureInput, littleEndianBytes(signal))
    let capture = try ALSACapture(
      device: "shelftestcapture", sampleRate: 44100, channels: 2, sampleFormat: .s16)
    var received: [Int16] = []
    var buffer = [Int16](repeating: 0, count: 1000 * 2)
    while received.count < 10_000 * 2 {
      let got = try buffer.withUnsafeMutableBytes { try capture.read(into: $0.baseAddress!, frames: 1000) }
      received += buffer[0..<(got * 2)]
    }
    capture.close()
    #expect(received == Array(signal.prefix(10_000 * 2)))
    #expect(capture.overruns == 0)
  }

  @Test func devicesIncludeNullAndDefault() throws {
    let devices = try ALSADevices.list()
    let null = devices.first { $0.name == "null" }
    #expect(null != nil)
    #expect(null?.playback == true && null?.capture == true)
    #expect(null?.description.contains("Discard all samples") == true)
  }

  @Test func playerPlaysSameShapeTracksGaplessAndBitExact() throws {
    let folder = try TemporaryDirectory()
    let a = testSignal16(frames: 7000, seed: 1)
    let b = testSignal16(frames: 5001, seed: 2)
    try writeWAV16(folder.file("a.wav"), a)
    let flac = try AudioFileWriter(
      path: folder.raw("b.flac"), container: .flac, sampleFormat: .s16, sampleRate: 44100, channels: 2)
    try flac.write(b)
    try flac.close()
    writeBytes(folder.file("bad.wav"), tinyPNG)
    let player = Player(
      tracks: PlayerTrack.files([folder.raw("a.wav"), folder.raw("bad.wav"), folder.raw("b.flac")]),
      options: PlayerOptions(device: TestALSA.fileDevice(folder.file("out.raw"))))
    var started: [Int] = []
    var failed: [String] = []
    let summary = player.run { event in
      switch event {
      case .started(let track, _, _): started.append(track)
      case .failed(_, _, let error): failed.append(error.description)
      default: break
      }
    }
    #expect(started == [0, 2])
    #expect(failed == ["\(folder.file("bad.wav")): not an audio file (it is a PNG image)"])
    #expect(summary.played == 2)
    #expect(summary.deviceError == nil)
    let played = readBytes(folder.file("out.raw"))
    let expected = littleEndianBytes(a + b)
    #expect(Array(played.prefix(expected.count)) == expected)
    #expect(played.dropFirst(expected.count).allSatisfy { $0 == 0 })
  }

  @Test func playerAppliesVolumeAndStartOffset() throws {
    let folder = try TemporaryDirectory()
    let a = testSignal16(frames: 44100, seed: 5)
    try writeWAV16(folder.file("a.wav"), a)
    let player = Player(
      tracks: PlayerTrack.files([folder.raw("a.wav")]),
      options: PlayerOptions(device: TestALSA.fileDevice(folder.file("out.raw")), volume: 50, start: 0.5))
    _ = player.run { _ in }
    let g = Gain.factor(volume: 50)
    #expect(g == 0.25)
    let expected = a[(22050 * 2)...].map { Int16(clamping: Int32((Float($0) * g).rounded())) }
    let played = readBytes(folder.file("out.raw"))
    #expect(Array(played.prefix(expected.count * 2)) == littleEndianBytes(Array(expected)))
  }

  @Test func playerReportsABadDevice() throws {
    let folder = try TemporaryDirectory()
    try writeWAV16(folder.file("a.wav"), testSignal16(frames: 100))
    let player = Player(
      tracks: PlayerTrack.files([folder.raw("a.wav")]), options: PlayerOptions(device: "nosuchdevice"))
    let summary = player.run { _ in }
    #expect(summary.deviceError?.description == "device nosuchdevice: no such ALSA device")
  }

  @Test func recorderStopsAtTheDurationWithExactSamples() throws {
    let folder = try TemporaryDirectory()
    let signal = testSignal16(frames: 20_000, seed: 9)
    writeBytes(TestALSA.captureInput, littleEndianBytes(signal))
    var request = RecordingRequest(output: folder.raw("r.wav"), container: .wav)
    request.device = "shelftestcapture"
    request.maxDuration = 0.2
    let summary = try Recorder(request).run { _ in }
    #expect(summary.frames == 8820)
    #expect(summary.stop == .duration)
    let reader = try AudioFileReader(path: folder.raw("r.wav"))
    let recorded: [Int16] = try reader.readAll()
    #expect(recorded == Array(signal.prefix(8820 * 2)))
  }

  @Test func recorderStopsBeforeMaxSizeAndRefusesExistingFiles() throws {
    let folder = try TemporaryDirectory()
    writeBytes(TestALSA.captureInput, littleEndianBytes(testSignal16(frames: 40_000, seed: 4)))
    var request = RecordingRequest(output: folder.raw("r.flac"), container: .flac)
    request.device = "shelftestcapture"
    request.maxBytes = 50_000
    let summary = try Recorder(request).run { _ in }
    #expect(summary.stop == .size)
    var wav = RecordingRequest(output: folder.raw("r.wav"), container: .wav)
    wav.device = "shelftestcapture"
    wav.maxBytes = 40_000
    let wavSummary = try Recorder(wav).run { _ in }
    #expect(wavSummary.stop == .size)
    #expect(wavSummary.bytes <= 40_000)
    #expect(wavSummary.bytes > 40_000 - 4)
    let error = #expect(throws: AudioError.self) { try Recorder(wav).run { _ in } }
    #expect(error?.reason == .exists)
  }

  @Test func recorderWrites24BitFromPackedCapture() throws {
    let folder = try TemporaryDirectory()
    var bytes: [UInt8] = []
    let signal = testSignal24(frames: 10_000)
    for s in signal {
      let u = UInt32(bitPattern: s)
      bytes += [UInt8(u >> 8 & 0xFF), UInt8(u >> 16 & 0xFF), UInt8(u >> 24)]
    }
    writeBytes(TestALSA.captureInput, bytes)
    var request = RecordingRequest(output: folder.raw("r.flac"), container: .flac)
    request.device = "shelftestcapture"
    request.sampleFormat = .s24
    request.sampleRate = 48000
    request.maxDuration = 0.1
    let summary = try Recorder(request).run { _ in }
    #expect(summary.frames == 4800)
    #expect(summary.storedFormat == .s24)
    let recorded: [Int32] = try AudioFileReader(path: folder.raw("r.flac")).readAll()
    #expect(recorded == Array(signal.prefix(4800 * 2)))
  }

  @Test func recorderStopsWhenAsked() throws {
    let folder = try TemporaryDirectory()
    writeBytes(TestALSA.captureInput, littleEndianBytes(testSignal16(frames: 40_000, seed: 4)))
    var request = RecordingRequest(output: folder.raw("r.wav"), container: .wav)
    request.device = "shelftestcapture"
    let recorder = Recorder(request)
    var reports = 0
    let summary = try recorder.run { progress in
      reports += 1
      if progress.seconds > 0.3 { recorder.stop() }
      #expect(progress.peakDBFS.count == 2)
    }
    #expect(summary.stop == .requested)
    #expect(reports >= 3)
    #expect(try AudioFileReader(path: folder.raw("r.wav")).format.frames == summary.frames)
  }

  @Test func queuedCommandsSkipSeekAndChangeVolume() throws {
    let folder = try TemporaryDirectory()
    let a = testSignal16(frames: 44100, seed: 11)
    let b = testSignal16(frames: 22050, seed: 12)
    try writeWAV16(folder.file("a.wav"), a)
    try writeWAV16(folder.file("b.wav"), b)
    let tracks = [folder.raw("a.wav"), folder.raw("b.wav")]

    // n before the first block: the first track starts and is skipped before a sample is heard.
    let skipping = Player(
      tracks: PlayerTrack.files(tracks),
      options: PlayerOptions(device: TestALSA.fileDevice(folder.file("next.raw"))))
    skipping.send(.next)
    var started: [Int] = []
    _ = skipping.run { if case .started(let track, _, _) = $0 { started.append(track) } }
    #expect(started == [0, 1])
    #expect(Array(readBytes(folder.file("next.raw")).prefix(b.count * 2)) == littleEndianBytes(b))

    // A seek by 0.5 s before the first block: the first track plays from 0.5 s.
    let seeking = Player(
      tracks: PlayerTrack.files(tracks),
      options: PlayerOptions(device: TestALSA.fileDevice(folder.file("seek.raw"))))
    seeking.send(.seek(by: 0.5))
    var positions: [Double] = []
    _ = seeking.run { if case .seeked(let position) = $0 { positions.append(position) } }
    #expect(positions == [0.5])
    let expected = Array(a[(22050 * 2)...]) + b
    #expect(
      Array(readBytes(folder.file("seek.raw")).prefix(expected.count * 2)) == littleEndianBytes(expected))

    // ↓ ten times: volume 50.
    let quieter = Player(
      tracks: PlayerTrack.files([tracks[1]]),
      options: PlayerOptions(device: TestALSA.fileDevice(folder.file("vol.raw"))))
    for _ in 0..<10 { quieter.send(.changeVolume(by: -5)) }
    _ = quieter.run { _ in }
    #expect(quieter.status.volume == 50)
    let scaled = b.map { Int16(clamping: Int32((Float($0) * 0.25).rounded())) }
    #expect(Array(readBytes(folder.file("vol.raw")).prefix(scaled.count * 2)) == littleEndianBytes(scaled))

    // q: nothing is played.
    let quitting = Player(
      tracks: PlayerTrack.files(tracks),
      options: PlayerOptions(device: TestALSA.fileDevice(folder.file("quit.raw"))))
    quitting.send(.quit)
    let summary = quitting.run { _ in }
    #expect(summary.quit)
    #expect(readBytes(folder.file("quit.raw")).allSatisfy { $0 == 0 })
  }

  @Test func previousRestartsOrGoesBack() throws {
    let folder = try TemporaryDirectory()
    let a = testSignal16(frames: 4410, seed: 21)
    let b = testSignal16(frames: 4410, seed: 22)
    try writeWAV16(folder.file("a.wav"), a)
    try writeWAV16(folder.file("b.wav"), b)
    let player = Player(
      tracks: PlayerTrack.files([folder.raw("a.wav"), folder.raw("b.wav")]),
      options: PlayerOptions(device: TestALSA.fileDevice(folder.file("out.raw"))))
    var started: [Int] = []
    _ = player.run { event in
      guard case .started(let track, _, _) = event else { return }
      started.append(track)
      // At the start of b, go back once: a plays again, then b.
      if started == [0, 1] { player.send(.previous) }
    }
    #expect(started == [0, 1, 0, 1])
  }

  @Test func shuffleAndRepeat() throws {
    let folder = try TemporaryDirectory()
    var tracks: [RawPath] = []
    for index in 0..<6 {
      try writeWAV16(folder.file("\(index).wav"), testSignal16(frames: 100, seed: UInt32(index + 1)))
      tracks.append(folder.raw("\(index).wav"))
    }
    let shuffled = Player(
      tracks: PlayerTrack.files(tracks),
      options: PlayerOptions(device: "null", shuffle: .tracks, repeatMode: .all))
    var started: [Int] = []
    let summary = shuffled.run { event in
      guard case .started(let track, _, _) = event else { return }
      started.append(track)
      if started.count == 12 { shuffled.send(.quit) }
    }
    #expect(summary.quit)
    #expect(started.count == 12)
    // Every pass plays every track once.
    #expect(Set(started.prefix(6)) == Set(0..<6))
    #expect(Set(started.suffix(6)) == Set(0..<6))
  }
}
