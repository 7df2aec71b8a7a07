import ShelfCore
import ShelfTestSupport
import Testing

@testable import ShelfAudio

#if canImport(CMPRISSupport)
  import CMPRISSupport
#endif

/// The player commands a remote control (MPRIS) sends, and the status fields it reads.
@Suite struct PlayerRemoteControlTests {
  init() { #expect(TestALSA.configured) }

  /// Play while playing and a second pause do nothing; SetPosition and Volume act before the
  /// first block, so the file device holds the exact samples from 0.5 s at a quarter of the
  /// amplitude (volume 50 is -12 dB).
  @Test func playPauseSetPositionAndSetVolume() throws {
    let folder = try TemporaryDirectory()
    let a = testSignal16(frames: 44100, seed: 31)
    try writeWAV16(folder.file("a.wav"), a)
    let player = Player(
      tracks: PlayerTrack.files([folder.raw("a.wav")]),
      options: PlayerOptions(device: TestALSA.fileDevice(folder.file("out.raw"))))
    for command: PlayerCommand in [.play, .setPosition(0.5), .setVolume(50), .pause, .pause, .play] {
      player.send(command)
    }
    var events: [String] = []
    let summary = player.run { event in
      switch event {
      case .started(let track, _, _): events.append("start \(track)")
      case .seeked(let position): events.append("seek \(position)")
      case .volume(let volume): events.append("volume \(volume)")
      case .paused(let position): events.append("pause \(position)")
      case .resumed(let position): events.append("resume \(position)")
      case .finished(let track, _): events.append("end \(track)")
      default: events.append("other")
      }
    }
    #expect(summary.played == 1)
    #expect(events == ["start 0", "seek 0.5", "volume 50", "pause 0.5", "resume 0.5", "end 0"])
    let scaled = a[(22050 * 2)...].map { Int16(clamping: Int32((Float($0) * 0.25).rounded())) }
    #expect(Array(readBytes(folder.file("out.raw")).prefix(scaled.count * 2)) == littleEndianBytes(scaled))
    let status = player.status
    #expect(status.seeks == 1)
    #expect(status.trackStart == 1)
    #expect(status.volume == 50)
    #expect(status.trackNumber == nil)
  }

  /// Each start counts, also of the same track again (repeat), so that MPRIS's track id
  /// changes; the album tag is in the status.
  @Test func everyStartHasANewTrackStartAndTheAlbumIsKnown() throws {
    let folder = try TemporaryDirectory()
    try writeWAV16(folder.file("a.wav"), testSignal16(frames: 100, seed: 32))
    let player = Player(
      tracks: PlayerTrack.files([folder.raw("a.wav"), folder.raw("a.wav")]),
      options: PlayerOptions(device: "null"))
    var starts: [Int] = []
    _ = player.run { event in
      if case .started = event { starts.append(player.status.trackStart) }
    }
    #expect(starts == [1, 2])
    #expect(player.status.album == nil)
  }

  /// What each MPRIS request becomes; values a hostile client sends are held to what the
  /// player's arithmetic takes.
  @Test func mprisRequestsBecomePlayerCommands() {
    func command(_ request: shelf_mpris_command, _ value: Double = 0) -> PlayerCommand? {
      MPRISService.playerCommand(Int32(bitPattern: request.rawValue), value: value)
    }
    #expect(command(SHELF_MPRIS_PLAY_PAUSE) == .togglePause)
    #expect(command(SHELF_MPRIS_PLAY) == .play)
    #expect(command(SHELF_MPRIS_PAUSE) == .pause)
    #expect(command(SHELF_MPRIS_STOP) == .quit)
    #expect(command(SHELF_MPRIS_QUIT) == .quit)
    #expect(command(SHELF_MPRIS_NEXT) == .next)
    #expect(command(SHELF_MPRIS_PREVIOUS) == .previous)
    #expect(command(SHELF_MPRIS_SEEK_BY, -5) == .seek(by: -5))
    #expect(command(SHELF_MPRIS_SEEK_BY, 9.2e12) == .seek(by: 1e9))
    #expect(command(SHELF_MPRIS_SEEK_TO, 12.5) == .setPosition(12.5))
    #expect(command(SHELF_MPRIS_SET_VOLUME, 0.504) == .setVolume(50))
    #expect(command(SHELF_MPRIS_SET_VOLUME, 7) == .setVolume(100))
    #expect(command(SHELF_MPRIS_SET_VOLUME, -.infinity) == .setVolume(0))
    #expect(command(SHELF_MPRIS_SEEK_BY, .nan) == nil)
    #expect(MPRISService.playerCommand(99, value: 0) == nil)
  }
}
