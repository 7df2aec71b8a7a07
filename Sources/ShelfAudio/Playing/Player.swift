public import ShelfCore
import Synchronization

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// How a `Player` plays its playlist.
public struct PlayerOptions: Sendable {
  /// The ALSA device (`default` goes through the plug layer, which converts rate and format).
  public var device: String = "default"
  /// Software volume 0…100; at 100 samples reach ALSA bit-exact.
  public var volume: Int = 100
  /// The playlist index of the track to start with (`--track`, `--resume`); nil: the first.
  public var startTrack: Int?
  /// Where to start that first track, in seconds.
  public var start: Double = 0
  /// Tracks, albums or neither in a random order.
  public var shuffle: ShuffleMode = .off
  /// The seed of the shuffled order (`--seed`); nil: a new order each run.
  public var seed: UInt64?
  /// What follows the end of a track and of the playlist.
  public var repeatMode: RepeatMode = .off
  /// Which ReplayGain applies (`auto`: the album's while an album plays in order, else the
  /// track's).
  public var replayGain: ReplayGain.Mode = .auto
  /// Added to the ReplayGain, in dB (only where a gain applies).
  public var preamp: Double = 0

  public init(
    device: String = "default", volume: Int = 100, startTrack: Int? = nil, start: Double = 0,
    shuffle: ShuffleMode = .off, seed: UInt64? = nil, repeatMode: RepeatMode = .off,
    replayGain: ReplayGain.Mode = .auto, preamp: Double = 0
  ) {
    self.replayGain = replayGain
    self.preamp = preamp
    self.device = device
    self.volume = volume
    self.startTrack = startTrack
    self.start = start
    self.shuffle = shuffle
    self.seed = seed
    self.repeatMode = repeatMode
  }
}

/// A request to a running `Player`, e.g. from a key press.
public enum PlayerCommand: Sendable, Equatable {
  case togglePause
  /// Resume when paused (MPRIS Play).
  case play
  /// Pause when playing (MPRIS Pause).
  case pause
  /// Seek by this many seconds (negative: back).
  case seek(by: Double)
  /// Seek to this many seconds into the track (MPRIS SetPosition).
  case setPosition(Double)
  /// Change the volume by this many percentage points.
  case changeVolume(by: Int)
  /// Set the volume, 0…100 (MPRIS Volume).
  case setVolume(Int)
  case next
  case previous
  case quit
  /// Shuffle the tracks after this one, or go back to the list's order from this one (`s`).
  case toggleShuffle
  /// Repeat off, all, one, off (`r`).
  case cycleRepeat
}

/// What the player is doing now, for a status line.
public struct PlayerStatus: Sendable, Equatable {
  /// The playlist position (0-based) of the current track, nil before the first and after the last.
  public var trackNumber: Int?
  public var trackCount: Int
  public var path: RawPath?
  public var title: String?
  public var artist: String?
  public var album: String?
  /// How many tracks have started, this one included: a new value at each start, also of the
  /// same track again (MPRIS's track id).
  public var trackStart = 0
  /// How many seeks there have been: a new value after each (MPRIS's Seeked signal).
  public var seeks = 0
  /// Seconds heard of the current track.
  public var position: Double = 0
  /// Length of the current track in seconds (0 when unknown).
  public var duration: Double = 0
  public var paused = false
  public var volume: Int
  public var shuffle: ShuffleMode = .off
  public var repeatMode: RepeatMode = .off
}

/// Something that happened while playing, reported in order from the player's thread.
public enum PlayerEvent: Sendable {
  /// A track began; `info` holds its format and tags.
  case started(track: Int, path: RawPath, info: AudioFileInfo)
  /// A track played to its end (or was skipped).
  case finished(track: Int, path: RawPath)
  /// A track could not be played; the playlist goes on.
  case failed(track: Int, path: RawPath, error: AudioError)
  case paused(position: Double)
  case resumed(position: Double)
  case seeked(position: Double)
  case volume(Int)
  case shuffle(ShuffleMode)
  case repeatMode(RepeatMode)
  /// The track that just started plays with a ReplayGain: which one (`.track` or `.album`),
  /// its dB (preamp included) and the factor the samples are multiplied by (lower than the
  /// dB say when the peak would clip).
  case gain(track: Int, mode: ReplayGain.Mode, decibels: Double, factor: Double)
  /// The start position asked for lies at or past the end of the first track, which is
  /// skipped: `start` and the track's `duration` in seconds.
  case startPastEnd(track: Int, path: RawPath, start: Double, duration: Double)
  /// A track that may be passed over (`Player.silentSkippable`) has no sound: a video without
  /// an audio track, found in a folder. It is neither played nor a failure.
  case skipped(track: Int, path: RawPath, reason: AudioError)

  /// True for the events after which a status line shows something new at once (a seek or
  /// a volume change while paused included).
  public var changesStatus: Bool {
    switch self {
    case .paused, .resumed, .seeked, .volume, .shuffle, .repeatMode: true
    default: false
    }
  }
}

/// The outcome of playing a playlist.
public struct PlayerSummary: Sendable {
  /// Tracks that started playing.
  public var played = 0
  /// Tracks that could not be played.
  public var failures: [AudioError] = []
  /// Underruns recovered from.
  public var underruns = 0
  /// Set when the user quit before the end.
  public var quit = false
  /// Set when the device failed (not found, busy, gone): the playlist stopped.
  public var deviceError: AudioError?
  /// Set when the first track was skipped because the start position lay past its end.
  public var startedPastEnd = false
  /// Where playing stopped part way through a track (quit, a signal, the device failing):
  /// the track's playlist index and the seconds heard; nil when the playlist ended.
  public var stoppedAt: (track: Int, position: Double)?
  /// Playlist indices of the tracks that played to their end (not skipped, not stopped).
  public var completed: Set<Int> = []
}

/// Plays a playlist through ALSA: gapless between tracks of the same rate and channels, with
/// pause, seek, software volume, next/previous, shuffle and repeat.
///
/// `run` blocks (call it on a thread of its own, e.g. `BlockingThread.run`); `send` and `status`
/// may be called from any thread.
public final class Player: Sendable {
  /// The playlist in the order given.
  public let tracks: [PlayerTrack]
  public let options: PlayerOptions
  /// Opens a track for decoding when its turn comes (a caller may prepare the content then).
  let open: @Sendable (RawPath) throws(AudioError) -> any AudioDecoder
  /// Playlist indices of tracks that are passed over, not failed, when they have no sound
  /// (videos found in a folder: the user did not name them).
  public let silentSkippable: Set<Int>
  private let commands = Mutex<[PlayerCommand]>([])
  private let current: Mutex<PlayerStatus>

  /// A player of `tracks`; `open` opens each one just before it plays (by default, the file at
  /// its path).
  public init(
    tracks: [PlayerTrack], options: PlayerOptions, silentSkippable: Set<Int> = [],
    open: @escaping @Sendable (RawPath) throws(AudioError) -> any AudioDecoder = { path throws(AudioError) in
      try AudioDecoders.open(path: path)
    }
  ) {
    self.tracks = tracks
    self.options = options
    self.silentSkippable = silentSkippable
    self.open = open
    current = Mutex(
      PlayerStatus(
        trackCount: tracks.count, volume: min(100, max(0, options.volume)), shuffle: options.shuffle,
        repeatMode: options.repeatMode))
  }

  /// Queues a command; the player acts on it within a period (≈0.1 s).
  public func send(_ command: PlayerCommand) {
    commands.withLock { $0.append(command) }
  }

  /// A snapshot of what is playing.
  public var status: PlayerStatus { current.withLock { $0 } }

  /// The next queued command, if any: one at a time, so that a command that ends the track
  /// (`n` typed three times) leaves the rest for the tracks that follow.
  fileprivate func takeCommand() -> PlayerCommand? {
    commands.withLock { queue in queue.isEmpty ? nil : queue.removeFirst() }
  }

  fileprivate func update(_ body: (inout PlayerStatus) -> Void) { current.withLock { body(&$0) } }

  /// Whether samples of `natural` pass through a stream of `stream` samples unchanged, so that
  /// the stream can be kept for gapless playback.
  static func carriesExactly(_ stream: PCMSampleType, _ natural: PCMSampleType) -> Bool {
    stream == natural || (natural == .int16 && (stream == .int32 || stream == .float32))
  }

  /// Plays the playlist to its end (or until `quit`), reporting events as they happen.
  public func run(events: (PlayerEvent) -> Void) -> PlayerSummary {
    var playlist = PlaylistRun(player: self)
    return playlist.playAll(events: events)
  }
}

/// Where the playlist goes after a track.
private enum TrackEnd {
  /// The track played to its end: the next one, or the same again with repeat one.
  case ended
  /// The track was skipped or failed.
  case next
  case previous
  /// Quit, or the device failed: the playlist is over.
  case stop
}

/// Sample memory for one block, grown when a stream needs more.
private final class SampleBuffer {
  private(set) var pointer = UnsafeMutableRawPointer.allocate(byteCount: 4, alignment: 16)
  private var capacity = 4

  func reserve(bytes: Int) {
    guard capacity < bytes else { return }
    pointer.deallocate()
    pointer = UnsafeMutableRawPointer.allocate(byteCount: bytes, alignment: 16)
    capacity = bytes
  }

  deinit { pointer.deallocate() }
}

/// One run through a player's playlist: the position in it, the open ALSA stream (kept across
/// tracks of the same shape for gapless playback) and the summary so far.
private struct PlaylistRun {
  let player: Player
  var summary = PlayerSummary()
  /// Playlist indices in playing order, and the place in it.
  var order: [Int]
  var slot = 0
  var shuffle: ShuffleMode
  var repeatMode: RepeatMode
  var generator: SeededGenerator
  /// The album key of each track, for the shuffled orders.
  let albums: [String?]
  let positions: [AlbumPosition?]
  var output: ALSAPlayback?
  let buffer = SampleBuffer()
  var volume: Int
  var firstTrack = true
  var playedThisPass = false

  init(player: Player) {
    self.player = player
    let options = player.options
    shuffle = options.shuffle
    repeatMode = options.repeatMode
    generator = SeededGenerator(seed: options.seed ?? UInt64.random(in: .min ... .max))
    albums = player.tracks.map(\.album)
    positions = player.tracks.map(\.albumPosition)
    order = PlayOrder.order(
      albums: albums, positions: positions, mode: shuffle, first: options.startTrack, using: &generator)
    volume = min(100, max(0, options.volume))
  }

  /// Plays tracks until the playlist ends, the user quits or the device fails.
  mutating func playAll(events: (PlayerEvent) -> Void) -> PlayerSummary {
    while let index = nextTrack() {
      switch playTrack(index, events: events) {
      case .ended:
        summary.completed.insert(index)
        if repeatMode != .one { slot += 1 }
      case .next: slot += 1
      case .previous: slot = max(0, slot - 1)
      case .stop:
        player.update { $0.trackNumber = nil }
        return summary
      }
    }
    if let output {
      summary.underruns += output.underruns
      try? output.padToPeriod()
      output.drain()
      output.close()
    }
    output = nil
    player.update { $0.trackNumber = nil }
    return summary
  }

  /// The playlist index of the track at `slot`, starting a new pass (reshuffled) when repeating
  /// the playlist; nil at the end.
  private mutating func nextTrack() -> Int? {
    if slot >= order.count {
      guard repeatMode == .all, playedThisPass, !player.tracks.isEmpty else { return nil }
      playedThisPass = false
      slot = 0
      order = PlayOrder.order(albums: albums, positions: positions, mode: shuffle, using: &generator)
    }
    return order[slot]
  }

  /// Opens, announces and streams one track.
  private mutating func playTrack(_ index: Int, events: (PlayerEvent) -> Void) -> TrackEnd {
    // The start position belongs to the first track tried: a track after it that fails to
    // open does not pass it on to another file.
    let startsHere = firstTrack
    firstTrack = false
    let track = player.tracks[index]
    let path = track.path
    var reader: any AudioDecoder
    do {
      reader = try player.open(path)
      if let segment = track.segment { reader = try SegmentDecoder(reader, segment: segment) }
    } catch  where error.reason == .noAudioTrack && player.silentSkippable.contains(index) {
      events(.skipped(track: index, path: path, reason: error))
      return .next
    } catch {
      summary.failures.append(error)
      events(.failed(track: index, path: path, error: error))
      return .next
    }
    guard !startsHere || applyStart(to: reader, track: index, path: path, events: events) else {
      return .next
    }
    let gain = replayGain(for: index, tags: reader.tags)
    guard
      let (out, playable) = openOutput(
        for: reader, scaled: gain != nil, track: index, path: path, events: events)
    else {
      return summary.deviceError == nil ? .next : .stop
    }
    announce(reader, track: index, events: events)
    if let gain {
      events(.gain(track: index, mode: gain.mode, decibels: gain.decibels, factor: gain.factor))
    }
    return stream(playable, to: out, gain: gain?.factor ?? 1, track: index, path: path, events: events)
  }

  /// The ReplayGain the track at `index` plays with: its tags', else the one `shelf gain`
  /// measured; nil when none applies (the samples then stay bit-exact). `auto` is the album's
  /// gain while the track's neighbours in the order are of its album, else the track's.
  private func replayGain(for index: Int, tags: AudioTags) -> (
    mode: ReplayGain.Mode, decibels: Double, factor: Double
  )? {
    guard let values = tags.replayGain ?? player.tracks[index].measuredGain else { return nil }
    var mode = player.options.replayGain
    if mode == .auto {
      let album = albums[index]
      let neighbours = [slot - 1, slot + 1].filter(order.indices.contains).map { albums[order[$0]] }
      mode = shuffle != .tracks && album != nil && neighbours.contains(album) ? .album : .track
    }
    guard let decibels = values.gain(for: mode) else { return nil }
    let preamp = player.options.preamp
    return (mode, decibels + preamp, values.scale(mode: mode, preamp: preamp))
  }

  /// Seeks the first track to the start position; false (the track is skipped) when that lies
  /// at or past its end.
  private mutating func applyStart(
    to reader: any AudioDecoder, track index: Int, path: RawPath, events: (PlayerEvent) -> Void
  ) -> Bool {
    let start = player.options.start
    guard start > 0 else { return true }
    let format = reader.format
    if format.frames > 0 && start >= format.duration {
      summary.startedPastEnd = true
      events(.startPastEnd(track: index, path: path, start: start, duration: format.duration))
      return false
    }
    try? reader.seek(toFrame: Int64(start * Double(format.sampleRate)))
    return true
  }

  /// The ALSA stream for `reader`'s rate, channels and sample width: the open one when it fits
  /// (gapless), else a new one after the previous track has finished; and what to stream into
  /// it: `reader` itself, or, on a device that does not take the track's rate or channel count
  /// (a `hw:` device), `reader` converted to the nearest ones it takes. Nil when this track
  /// cannot play here (reported) or the device failed (`summary.deviceError`).
  private mutating func openOutput(
    for reader: any AudioDecoder, scaled: Bool, track index: Int, path: RawPath, events: (PlayerEvent) -> Void
  ) -> (ALSAPlayback, any AudioDecoder)? {
    let format = reader.format
    // Samples scaled by a ReplayGain go out as floats, undithered.
    let natural = scaled ? PCMSampleType.float32 : reader.naturalSampleType
    if let open = output,
      open.parameters.sampleRate != format.sampleRate || open.parameters.channels != format.channels
        || !Player.carriesExactly(open.parameters.sampleType, natural)
    {
      try? open.padToPeriod()
      open.drain()
      open.close()
      output = nil
    }
    if output == nil {
      var types = [natural]
      for type in [PCMSampleType.float32, .int32, .int16] where !types.contains(type) { types.append(type) }
      do {
        output = try Self.openDevice(player.options.device, for: format, sampleTypes: types)
      } catch {
        guard error.reason == .unsupported else {
          summary.deviceError = error
          return nil
        }
        // This track's shape is not playable here; others may be.
        let trackError = AudioError(
          path: path, reason: .unsupported, message: "cannot play: \(error.description)")
        summary.failures.append(trackError)
        events(.failed(track: index, path: path, error: trackError))
        return nil
      }
    }
    guard let output else { return nil }
    let parameters = output.parameters
    buffer.reserve(
      bytes: max(256, parameters.periodFrames) * parameters.channels * parameters.sampleType.byteWidth)
    guard parameters.sampleRate != format.sampleRate || parameters.channels != format.channels else {
      return (output, reader)
    }
    do {
      return (
        output,
        try ConvertingDecoder(reader, sampleRate: parameters.sampleRate, channels: parameters.channels)
      )
    } catch {
      summary.failures.append(error)
      events(.failed(track: index, path: path, error: error))
      return nil
    }
  }

  /// Opens `device` at the track's rate and channel count, or, when it takes neither (a `hw:`
  /// device without ALSA's plug layer), at the nearest ones it takes.
  private static func openDevice(
    _ device: String, for format: AudioStreamFormat, sampleTypes: [PCMSampleType]
  ) throws(AudioError) -> ALSAPlayback {
    do {
      return try ALSAPlayback(
        device: device, sampleRate: format.sampleRate, channels: format.channels, sampleTypes: sampleTypes)
    } catch  where error.reason == .unsupported {
      return try ALSAPlayback(
        device: device, sampleRate: format.sampleRate, channels: format.channels, sampleTypes: sampleTypes,
        nearestShape: true)
    }
  }

  /// Counts the track as played and reports its start.
  private mutating func announce(_ reader: any AudioDecoder, track index: Int, events: (PlayerEvent) -> Void)
  {
    let track = player.tracks[index]
    let path = track.path
    let format = reader.format
    let info = AudioFileInfo(
      duration: format.duration, sampleRate: format.sampleRate, channels: format.channels,
      frames: format.frames,
      formatName: format.formatName, encodingName: format.encodingName, bitsPerSample: format.bitsPerSample,
      isLossless: format.isLossless, tags: track.tags?.filled(from: reader.tags) ?? reader.tags)
    summary.played += 1
    playedThisPass = true
    // In the list's order the number is the track's own (a CUE sheet's track 5 is 5/12).
    let (number, volume) = (shuffle == .off ? index : slot, self.volume)
    player.update {
      $0.trackNumber = number
      $0.path = path
      $0.title = info.tags.title
      $0.artist = info.tags.artist
      $0.album = info.tags.album
      $0.trackStart += 1
      $0.duration = format.duration
      $0.position = reader.position > 0 ? Double(reader.position) / Double(format.sampleRate) : 0
      $0.volume = volume
      $0.paused = false
    }
    events(.started(track: index, path: path, info: info))
  }

  /// Reads, scales and writes blocks until the track ends or a command moves on.
  private mutating func stream(
    _ reader: any AudioDecoder, to out: ALSAPlayback, gain: Double, track index: Int, path: RawPath,
    events: (PlayerEvent) -> Void
  ) -> TrackEnd {
    let parameters = out.parameters
    let blockFrames = max(256, parameters.periodFrames)
    let rate = Double(reader.format.sampleRate)
    var paused = false
    while true {
      while let command = player.takeCommand() {
        if let end = apply(
          command, reader: reader, out: out, paused: &paused, track: index, path: path, events: events)
        {
          return end
        }
      }
      if paused {
        usleep(20_000)
        continue
      }
      let got: Int
      do {
        got = try reader.read(into: buffer.pointer, frames: blockFrames, as: parameters.sampleType)
      } catch var error {
        // A decoder opened on a private copy (a backup entry's content) names the copy.
        if error.subject == reader.path.escaped { error.subject = path.escaped }
        summary.failures.append(error)
        events(.failed(track: index, path: path, error: error))
        return .next
      }
      if got == 0 {
        events(.finished(track: index, path: path))
        return .ended
      }
      Gain.apply(
        volume: volume, replayGain: gain, to: buffer.pointer, samples: got * parameters.channels,
        type: parameters.sampleType)
      do {
        try out.write(buffer.pointer, frames: got)
      } catch {
        summary.deviceError = error
        summary.stoppedAt = (index, Double(Self.heardFrames(reader, out)) / rate)
        closeOutput(out)
        return .stop
      }
      let heard = Double(Self.heardFrames(reader, out)) / rate
      player.update { $0.position = heard }
    }
  }

  /// Frames of the track that have reached the speaker (written minus ALSA's delay).
  private static func heardFrames(_ reader: any AudioDecoder, _ out: ALSAPlayback) -> Int64 {
    max(0, reader.position - Int64(out.delay))
  }

  /// Stops the stream at once (quit, device failure) and ends the playlist.
  private mutating func closeOutput(_ out: ALSAPlayback) {
    summary.underruns += out.underruns
    out.drop()
    out.close()
    output = nil
  }

  /// Acts on one command; returns where the playlist goes when the track ends here.
  private mutating func apply(
    _ command: PlayerCommand, reader: any AudioDecoder, out: ALSAPlayback, paused: inout Bool,
    track index: Int,
    path: RawPath, events: (PlayerEvent) -> Void
  ) -> TrackEnd? {
    let format = reader.format
    let rate = Double(format.sampleRate)
    switch command {
    case .quit:
      summary.quit = true
      summary.stoppedAt = (index, Double(Self.heardFrames(reader, out)) / rate)
      closeOutput(out)
      return .stop
    case .next:
      out.drop()
      events(.finished(track: index, path: path))
      return .next
    case .previous:
      out.drop()
      guard Double(Self.heardFrames(reader, out)) / rate > 3 else {
        events(.finished(track: index, path: path))
        return .previous
      }
      try? reader.seek(toFrame: 0)
      player.update {
        $0.position = 0
        $0.seeks += 1
      }
      events(.seeked(position: 0))
    case .seek(_), .setPosition(_):
      var target: Int64 = 0
      if case .seek(let seconds) = command { target = Self.heardFrames(reader, out) + Int64(seconds * rate) }
      if case .setPosition(let seconds) = command { target = Int64(seconds * rate) }
      target = max(0, target)
      out.drop()
      if format.frames > 0 && target >= format.frames {
        events(.finished(track: index, path: path))
        return .next
      }
      try? reader.seek(toFrame: target)
      // Shown at once, also while paused (no write follows to update it).
      let position = Double(reader.position) / rate
      player.update {
        $0.position = position
        $0.seeks += 1
      }
      events(.seeked(position: position))
    case .toggleShuffle:
      shuffle = shuffle == .off ? .tracks : .off
      if shuffle == .off {
        order = Array(player.tracks.indices)
        slot = index
      } else {
        order = PlayOrder.order(
          albums: albums, positions: positions, mode: shuffle, first: index, using: &generator)
        slot = 0
      }
      let (mode, number) = (shuffle, shuffle == .off ? index : 0)
      player.update {
        $0.shuffle = mode
        $0.trackNumber = number
      }
      events(.shuffle(mode))
    case .cycleRepeat:
      repeatMode = repeatMode.next
      let mode = repeatMode
      player.update { $0.repeatMode = mode }
      events(.repeatMode(mode))
    case .changeVolume(_), .setVolume(_):
      if case .changeVolume(let delta) = command { volume = min(100, max(0, volume + delta)) }
      if case .setVolume(let value) = command { volume = min(100, max(0, value)) }
      let newVolume = volume
      player.update { $0.volume = newVolume }
      events(.volume(newVolume))
    case .togglePause, .play, .pause:
      if paused && command != .pause {
        paused = false
        player.update { $0.paused = false }
        events(.resumed(position: Double(reader.position) / rate))
      } else if !paused && command != .play {
        // Forget what is queued and rewind to what was heard: resume picks up from there.
        let heard = Self.heardFrames(reader, out)
        out.drop()
        try? reader.seek(toFrame: heard)
        paused = true
        player.update {
          $0.paused = true
          $0.position = Double(heard) / rate
        }
        events(.paused(position: Double(heard) / rate))
      }
    }
    return nil
  }
}
