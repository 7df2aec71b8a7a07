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
  /// Where to start the first track, in seconds.
  public var start: Double = 0
  /// Play the tracks in a random order.
  public var shuffle = false
  /// Start again after the last track.
  public var repeatPlaylist = false

  public init(
    device: String = "default", volume: Int = 100, start: Double = 0, shuffle: Bool = false,
    repeatPlaylist: Bool = false
  ) {
    self.device = device
    self.volume = volume
    self.start = start
    self.shuffle = shuffle
    self.repeatPlaylist = repeatPlaylist
  }
}

/// A request to a running `Player`, e.g. from a key press.
public enum PlayerCommand: Sendable, Equatable {
  case togglePause
  /// Seek by this many seconds (negative: back).
  case seek(by: Double)
  /// Change the volume by this many percentage points.
  case changeVolume(by: Int)
  case next
  case previous
  case quit
}

/// What the player is doing now, for a status line.
public struct PlayerStatus: Sendable, Equatable {
  /// The playlist position (0-based) of the current track, nil before the first and after the last.
  public var trackNumber: Int?
  public var trackCount: Int
  public var path: RawPath?
  public var title: String?
  public var artist: String?
  /// Seconds heard of the current track.
  public var position: Double = 0
  /// Length of the current track in seconds (0 when unknown).
  public var duration: Double = 0
  public var paused = false
  public var volume: Int
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
}

/// Plays a playlist through ALSA: gapless between tracks of the same rate and channels, with
/// pause, seek, software volume, next/previous, shuffle and repeat.
///
/// `run` blocks (call it on a thread of its own, e.g. `BlockingThread.run`); `send` and `status`
/// may be called from any thread.
public final class Player: Sendable {
  /// The playlist in the order given.
  public let tracks: [RawPath]
  public let options: PlayerOptions
  private let commands = Mutex<[PlayerCommand]>([])
  private let current: Mutex<PlayerStatus>

  public init(tracks: [RawPath], options: PlayerOptions) {
    self.tracks = tracks
    self.options = options
    current = Mutex(PlayerStatus(trackCount: tracks.count, volume: min(100, max(0, options.volume))))
  }

  /// Queues a command; the player acts on it within a period (≈0.1 s).
  public func send(_ command: PlayerCommand) {
    commands.withLock { $0.append(command) }
  }

  /// A snapshot of what is playing.
  public var status: PlayerStatus { current.withLock { $0 } }

  private func takeCommands() -> [PlayerCommand] {
    commands.withLock { queue in
      let taken = queue
      queue.removeAll()
      return taken
    }
  }

  private func update(_ body: (inout PlayerStatus) -> Void) { current.withLock { body(&$0) } }

  /// Whether samples of `natural` pass through a stream of `stream` samples unchanged, so that
  /// the stream can be kept for gapless playback.
  static func carriesExactly(_ stream: PCMSampleType, _ natural: PCMSampleType) -> Bool {
    stream == natural || (natural == .int16 && (stream == .int32 || stream == .float32))
  }

  /// Plays the playlist to its end (or until `quit`), reporting events as they happen.
  public func run(events: (PlayerEvent) -> Void) -> PlayerSummary {
    var summary = PlayerSummary()
    var order = Array(tracks.indices)
    if options.shuffle { order.shuffle() }
    var slot = 0
    var output: ALSAPlayback?
    var buffer = UnsafeMutableRawPointer.allocate(byteCount: 4, alignment: 16)
    var bufferBytes = 4
    defer { buffer.deallocate() }
    var volume = min(100, max(0, options.volume))
    var firstTrack = true
    var playedThisPass = false

    func finish() {
      if let output {
        try? output.padToPeriod()
        output.drain()
        output.close()
      }
      output = nil
      update { $0.trackNumber = nil }
    }

    playlist: while true {
      if slot >= order.count {
        guard options.repeatPlaylist, playedThisPass, !order.isEmpty else { break }
        playedThisPass = false
        slot = 0
        if options.shuffle { order.shuffle() }
      }
      if slot < 0 { slot = 0 }
      let index = order[slot]
      let path = tracks[index]
      let reader: AudioFileReader
      do {
        reader = try AudioFileReader(path: path)
      } catch {
        summary.failures.append(error)
        events(.failed(track: index, path: path, error: error))
        slot += 1
        continue
      }
      let format = reader.format
      if let open = output,
        open.parameters.sampleRate != format.sampleRate || open.parameters.channels != format.channels
          || !Player.carriesExactly(open.parameters.sampleType, reader.naturalSampleType)
      {
        // A change of rate, channels or sample width needs a new stream: let the previous
        // track finish.
        try? open.padToPeriod()
        open.drain()
        open.close()
        output = nil
      }
      if output == nil {
        var types = [reader.naturalSampleType]
        for type in [PCMSampleType.float32, .int32, .int16] where !types.contains(type) { types.append(type) }
        do {
          output = try ALSAPlayback(
            device: options.device, sampleRate: format.sampleRate, channels: format.channels,
            sampleTypes: types)
        } catch {
          if error.reason == .unsupported {
            // This track's shape is not playable here; others may be.
            let trackError = AudioError(
              path: path, reason: .unsupported, message: "cannot play: \(error.description)")
            summary.failures.append(trackError)
            events(.failed(track: index, path: path, error: trackError))
            slot += 1
            continue
          }
          summary.deviceError = error
          break playlist
        }
      }
      guard let out = output else { break }
      let parameters = out.parameters
      let frameBytes = parameters.channels * parameters.sampleType.byteWidth
      let blockFrames = max(256, parameters.periodFrames)
      if bufferBytes < blockFrames * frameBytes {
        buffer.deallocate()
        bufferBytes = blockFrames * frameBytes
        buffer = UnsafeMutableRawPointer.allocate(byteCount: bufferBytes, alignment: 16)
      }
      if firstTrack && options.start > 0 {
        try? reader.seek(toFrame: Int64(options.start * Double(format.sampleRate)))
      }
      firstTrack = false
      let info = AudioFileInfo(
        duration: format.duration, sampleRate: format.sampleRate, channels: format.channels,
        frames: format.frames,
        formatName: format.formatName, encodingName: format.encodingName, bitsPerSample: format.bitsPerSample,
        isLossless: format.isLossless, tags: reader.tags)
      summary.played += 1
      playedThisPass = true
      update {
        $0.trackNumber = slot
        $0.path = path
        $0.title = info.tags.title
        $0.artist = info.tags.artist
        $0.duration = format.duration
        $0.position = reader.position > 0 ? Double(reader.position) / Double(format.sampleRate) : 0
        $0.volume = volume
        $0.paused = false
      }
      events(.started(track: index, path: path, info: info))
      let rate = Double(format.sampleRate)
      func heardFrames() -> Int64 { max(0, reader.position - Int64(out.delay)) }

      var paused = false
      track: while true {
        for command in takeCommands() {
          switch command {
          case .quit:
            out.drop()
            out.close()
            output = nil
            summary.quit = true
            update { $0.trackNumber = nil }
            summary.underruns += out.underruns
            return summary
          case .next:
            out.drop()
            events(.finished(track: index, path: path))
            slot += 1
            continue playlist
          case .previous:
            out.drop()
            if Double(heardFrames()) / rate > 3 {
              try? reader.seek(toFrame: 0)
              events(.seeked(position: 0))
            } else {
              events(.finished(track: index, path: path))
              slot = max(0, slot - 1)
              continue playlist
            }
          case .seek(let seconds):
            let heard = heardFrames()
            var target = heard + Int64(seconds * rate)
            target = max(0, target)
            if format.frames > 0 && target >= format.frames {
              out.drop()
              events(.finished(track: index, path: path))
              slot += 1
              continue playlist
            }
            out.drop()
            do { try reader.seek(toFrame: target) } catch {}
            events(.seeked(position: Double(reader.position) / rate))
          case .changeVolume(let delta):
            volume = min(100, max(0, volume + delta))
            let newVolume = volume
            update { $0.volume = newVolume }
            events(.volume(volume))
          case .togglePause:
            if paused {
              paused = false
              update { $0.paused = false }
              events(.resumed(position: Double(reader.position) / rate))
            } else {
              // Forget what is queued and rewind to what was heard: resume picks up from there.
              let heard = heardFrames()
              out.drop()
              try? reader.seek(toFrame: heard)
              paused = true
              update {
                $0.paused = true
                $0.position = Double(heard) / rate
              }
              events(.paused(position: Double(heard) / rate))
            }
          }
        }
        if paused {
          usleep(20_000)
          continue
        }
        let got: Int
        do {
          got = try reader.read(into: buffer, frames: blockFrames, as: parameters.sampleType)
        } catch {
          summary.failures.append(error)
          events(.failed(track: index, path: path, error: error))
          break track
        }
        if got == 0 {
          events(.finished(track: index, path: path))
          break track
        }
        Gain.apply(
          volume: volume, to: buffer, samples: got * parameters.channels, type: parameters.sampleType)
        do {
          try out.write(buffer, frames: got)
        } catch {
          summary.deviceError = error
          summary.underruns += out.underruns
          out.drop()
          out.close()
          output = nil
          update { $0.trackNumber = nil }
          return summary
        }
        let heard = Double(heardFrames()) / rate
        update { $0.position = heard }
      }
      slot += 1
    }
    if let out = output { summary.underruns += out.underruns }
    finish()
    return summary
  }
}
