import ShelfAudio
import ShelfCore
import ShelfTestSupport
import Testing

/// The player's library side: orders, CUE-style segments played gaplessly through ALSA's file
/// plugin, the shuffle and repeat commands, and the resume points file.
struct PlayerLibraryTests {
  @Test func splitMix64GivesTheReferenceSequence() {
    // The first outputs of SplitMix64 seeded with 0 (Vigna's reference splitmix64.c).
    var generator = SeededGenerator(seed: 0)
    #expect(generator.next() == 0xE220_A839_7B1D_CDAF)
    #expect(generator.next() == 0x6E78_9E6A_A1B9_65F4)
  }

  @Test func ordersKeepTracksOnceAndAlbumsTogether() {
    var generator = SeededGenerator(seed: 42)
    #expect(PlayOrder.order(albums: [nil, nil, nil, nil], mode: .off, using: &generator) == [0, 1, 2, 3])
    #expect(
      PlayOrder.order(albums: [nil, nil, nil, nil], mode: .off, first: 2, using: &generator) == [2, 3])
    let shuffled = PlayOrder.order(
      albums: Array(repeating: nil, count: 8), mode: .tracks, first: 5, using: &generator)
    #expect(shuffled.first == 5 && shuffled.sorted() == Array(0..<8))
    let albums: [String?] = ["a", "a", "a", "b", "b", nil, "c", "c"]
    for seed in UInt64(0)..<20 {
      var generator = SeededGenerator(seed: seed)
      let order = PlayOrder.order(albums: albums, mode: .albums, using: &generator)
      #expect(order.sorted() == Array(0..<8))
      // Each album is one run, in list order.
      for album in ["a", "b", "c"] {
        let positions = order.indices.filter { albums[order[$0]] == album }
        #expect(positions == Array(positions[0]...positions.last!))
        #expect(positions.map { order[$0] } == albums.indices.filter { albums[$0] == album })
      }
      var again = SeededGenerator(seed: seed)
      #expect(PlayOrder.order(albums: albums, mode: .albums, using: &again) == order)
      var starting = SeededGenerator(seed: seed)
      let fromB = PlayOrder.order(albums: albums, mode: .albums, first: 4, using: &starting)
      #expect(Array(fromB.prefix(1)) == [4] && !fromB.contains(3) && fromB.count == 7)
    }
  }

  @Test func segmentsOfOneFilePlayGaplesslyInTheirOwnFrames() throws {
    let folder = try TemporaryDirectory()
    // 2 s at 44.1 kHz: CD frame 75 is sample 44,100; frame 113 is sample 66,444.
    let signal = testSignal16(frames: 88200, seed: 3)
    try writeWAV16(folder.file("cd.wav"), signal)
    let tracks = [
      PlayerTrack(path: folder.raw("cd.wav"), segment: TrackSegment(start: 0, end: 75)),
      PlayerTrack(path: folder.raw("cd.wav"), segment: TrackSegment(start: 75, end: 113)),
      PlayerTrack(path: folder.raw("cd.wav"), segment: TrackSegment(start: 113)),
    ]
    #expect(TrackSegment(start: 113).frames(atRate: 44100).start == 66444)
    let player = Player(
      tracks: tracks, options: PlayerOptions(device: TestALSA.fileDevice(folder.file("out.raw"))))
    var durations: [Double] = []
    let summary = player.run { event in
      if case .started(_, _, let info) = event { durations.append(info.duration) }
    }
    #expect(summary.played == 3 && summary.completed == [0, 1, 2])
    #expect(durations == [1.0, 22344.0 / 44100, 21756.0 / 44100])
    let played = readBytes(folder.file("out.raw"))
    let expected = littleEndianBytes(signal)
    #expect(Array(played.prefix(expected.count)) == expected)
    #expect(played.dropFirst(expected.count).allSatisfy { $0 == 0 })

    // The second track, started 0.1 s in: its own frames, from 4,410 on.
    let second = Player(
      tracks: [tracks[1]],
      options: PlayerOptions(device: TestALSA.fileDevice(folder.file("second.raw")), start: 0.1))
    _ = second.run { _ in }
    let part = littleEndianBytes(Array(signal[((44100 + 4410) * 2)..<(66444 * 2)]))
    #expect(Array(readBytes(folder.file("second.raw")).prefix(part.count)) == part)
  }

  @Test func repeatOneReplaysUntilNextAndShuffleToggles() throws {
    let folder = try TemporaryDirectory()
    for index in 0..<4 {
      try writeWAV16(folder.file("\(index).wav"), testSignal16(frames: 200, seed: UInt32(index + 1)))
    }
    let paths = (0..<4).map { folder.raw("\($0).wav") }
    let player = Player(
      tracks: PlayerTrack.files(paths), options: PlayerOptions(device: "null", repeatMode: .one))
    var started: [Int] = []
    var events: [String] = []
    let summary = player.run { event in
      switch event {
      case .started(let track, _, _):
        started.append(track)
        if started.count == 3 { player.send(.next) }
        if started.count == 4 { player.send(.cycleRepeat) }
        if started.count == 5 { player.send(.toggleShuffle) }
      case .repeatMode(let mode): events.append("repeat \(mode.rawValue)")
      case .shuffle(let mode): events.append("shuffle \(mode.rawValue)")
      default: break
      }
    }
    // 0 three times, n to 1, where r (one → off) lets the playlist move on to 2; shuffling
    // from 2 then plays the other three once each, in some order, and the playlist ends.
    #expect(Array(started.prefix(5)) == [0, 0, 0, 1, 2])
    #expect(events == ["repeat off", "shuffle tracks"])
    #expect(started.count == 8)
    #expect(Set(started.suffix(3)) == Set([0, 1, 3]))
    #expect(summary.stoppedAt == nil)
  }

  @Test func resumePointsAreKeptForgottenAndBounded() throws {
    let folder = try TemporaryDirectory()
    let points = ResumePoints(file: folder.raw("state/shelf/resume"))
    let a = RawPath("/music/a.flac")
    let point = ResumePoint(track: 2, position: 61.25, size: 1000, mtimeNanoseconds: 7)
    #expect(points.point(for: a) == nil)
    try points.record(point, for: a)
    try points.record(ResumePoint(track: 0, position: 1, size: 1, mtimeNanoseconds: 1), for: RawPath("/b"))
    #expect(points.point(for: a) == point)
    try points.record(nil, for: a)
    #expect(points.point(for: a) == nil)
    #expect(points.point(for: RawPath("/b"))?.position == 1)
    // A name that is not UTF-8 is a key like any other.
    let odd = RawPath(bytes: Array("/music/caf".utf8) + [0xE9, 0x2E, 0x6D, 0x70, 0x33])
    try points.record(point, for: odd)
    #expect(points.point(for: odd) == point)
    #expect(ResumePoints(environment: ["XDG_STATE_HOME": "/s"])?.file == RawPath("/s/shelf/resume"))
    #expect(ResumePoints(environment: ["HOME": "/h"])?.file == RawPath("/h/.local/state/shelf/resume"))
    #expect(ResumePoints(environment: ["XDG_STATE_HOME": "relative"]) == nil)
  }
}
