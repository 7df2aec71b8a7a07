internal import CMPRISSupport
import ShelfCore
import Synchronization

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// A running `Player` published on the D-Bus session bus as an MPRIS 2 media player, so that
/// `playerctl` and a desktop's media keys drive it.
///
/// It owns `org.mpris.MediaPlayer2.shelf` (a second shelf playing at once takes
/// `org.mpris.MediaPlayer2.shelf.instance<PID>`) and serves `/org/mpris/MediaPlayer2` on a
/// thread of its own: requests become `PlayerCommand`s, and the player's status, read every
/// 0.1 s, becomes the properties and their PropertiesChanged and Seeked signals. Without a
/// session bus (or libsystemd) there is no service, no message and no wait.
public final class MPRISService: Sendable {
  /// The well-known name of the first shelf playing.
  public static let busName = "org.mpris.MediaPlayer2.shelf"
  /// How long the serving thread waits for a request before it looks at the player again.
  static let pollMicroseconds: UInt64 = 100_000

  private let stopped = Atomic<Bool>(false)
  private let thread: pthread_t
  private let body: MPRISThreadBody

  /// Connects to the session bus (`DBUS_SESSION_BUS_ADDRESS`, else `$XDG_RUNTIME_DIR/bus`) and
  /// starts serving `player`; nil, at once and silently, when there is no bus to connect to.
  public static func start(player: Player) -> MPRISService? {
    guard let connection = MPRISConnection(player: player) else { return nil }
    let body = MPRISThreadBody(connection: connection)
    // The thread's own reference, released when it ends.
    let box = Unmanaged.passRetained(body)
    var thread = pthread_t()
    let code = pthread_create(
      &thread, nil,
      { raw in
        guard let raw else { return nil }
        Unmanaged<MPRISThreadBody>.fromOpaque(raw).takeRetainedValue().run()
        return nil
      }, box.toOpaque())
    guard code == 0 else {
      box.release()
      return nil
    }
    return MPRISService(thread: thread, body: body)
  }

  private init(thread: pthread_t, body: MPRISThreadBody) {
    self.thread = thread
    self.body = body
  }

  /// Stops serving: the player shows as stopped, the name is released and the thread ends.
  /// Call it once playing has ended; later calls do nothing.
  public func stop() {
    guard !stopped.exchange(true, ordering: .sequentiallyConsistent) else { return }
    body.stopping.store(true, ordering: .sequentiallyConsistent)
    body.connection.wake()
    pthread_join(thread, nil)
  }

  deinit { stop() }

  /// The player command an MPRIS request stands for (`value`: seconds for seeks, 0…1 for the
  /// volume); nil for one shelf does not know or a value that is not a number.
  static func playerCommand(_ request: Int32, value: Double) -> PlayerCommand? {
    // Seconds are held to a range no track reaches, so that the frame arithmetic cannot trap.
    guard !value.isNaN else { return nil }
    let seconds = min(1e9, max(-1e9, value))
    switch UInt32(bitPattern: request) {
    case SHELF_MPRIS_PLAY_PAUSE.rawValue: return .togglePause
    case SHELF_MPRIS_PLAY.rawValue: return .play
    case SHELF_MPRIS_PAUSE.rawValue: return .pause
    case SHELF_MPRIS_STOP.rawValue, SHELF_MPRIS_QUIT.rawValue: return .quit
    case SHELF_MPRIS_NEXT.rawValue: return .next
    case SHELF_MPRIS_PREVIOUS.rawValue: return .previous
    case SHELF_MPRIS_SEEK_BY.rawValue: return .seek(by: seconds)
    case SHELF_MPRIS_SEEK_TO.rawValue: return .setPosition(max(0, seconds))
    case SHELF_MPRIS_SET_VOLUME.rawValue:
      return .setVolume(Int((min(1, max(0, value)) * 100).rounded()))
    default: return nil
    }
  }
}

/// What the serving thread runs: the connection, until it is told to stop or the bus goes.
private final class MPRISThreadBody: Sendable {
  let connection: MPRISConnection
  let stopping = Atomic<Bool>(false)

  init(connection: MPRISConnection) { self.connection = connection }

  func run() {
    let name = "\(MPRISService.busName).instance\(getpid())"
    guard connection.publish(fallback: name) else { return }
    while !stopping.load(ordering: .sequentiallyConsistent) {
      guard connection.show(connection.player.status), connection.serve() else { return }
    }
    // Clients see the player stop before its name goes.
    var ended = connection.player.status
    ended.trackNumber = nil
    _ = connection.show(ended)
  }
}

/// The sd-bus connection (one C handle, freed on deinit), used by one thread at a time: the
/// caller of `start` opens it, then the serving thread alone uses it.
private final class MPRISConnection: @unchecked Sendable {
  private let handle: OpaquePointer
  let player: Player

  init?(player: Player) {
    var opened: OpaquePointer?
    // The handler reaches the player through the context pointer: the connection holds the
    // player for as long as the handle lives.
    let context = Unmanaged.passUnretained(player).toOpaque()
    let code = shelf_mpris_open(
      &opened,
      { context, request, value in
        guard let context,
          let command = MPRISService.playerCommand(request, value: value)
        else { return }
        Unmanaged<Player>.fromOpaque(context).takeUnretainedValue().send(command)
      }, context)
    guard code == 0, let opened else { return nil }
    handle = opened
    self.player = player
  }

  deinit { shelf_mpris_close(handle) }

  /// Serves the object and asks for the name (or `fallback`, when another shelf has it): the
  /// bus answers while `serve` runs. False when the request could not be queued.
  func publish(fallback: String) -> Bool {
    shelf_mpris_publish(handle, MPRISService.busName, fallback) >= 0
  }

  /// Answers the requests queued, then waits up to 0.1 s for more (or a `wake`); false when
  /// the bus is gone or refused both names.
  func serve() -> Bool {
    shelf_mpris_run(handle, MPRISService.pollMicroseconds) >= 0
  }

  /// Ends the serving thread's wait at once (from any thread).
  func wake() { shelf_mpris_wake(handle) }

  /// Shows `status` to clients; false when the bus is gone.
  func show(_ status: PlayerStatus) -> Bool {
    var shown = shelf_mpris_status()
    shown.has_track = status.trackNumber == nil ? 0 : 1
    shown.paused = status.paused ? 1 : 0
    shown.track_serial = UInt64(clamping: status.trackStart)
    shown.length_us = Self.microseconds(status.duration)
    shown.position_us = Self.microseconds(status.position)
    shown.seek_serial = UInt64(clamping: status.seeks)
    shown.volume = Double(status.volume) / 100
    shown.shuffle = status.shuffle == .off ? 0 : 1
    shown.loop = status.repeatMode == .all ? 2 : status.repeatMode == .one ? 1 : 0
    // Without a title tag, the file's name (as the status line and mpv show it).
    let title = status.title ?? status.path?.lastComponent.escaped
    return Self.withCString(title) { title in
      Self.withCString(status.artist) { artist in
        Self.withCString(status.album) { album in
          shown.title = title
          shown.artist = artist
          shown.album = album
          return shelf_mpris_update(handle, &shown) >= 0
        }
      }
    }
  }

  private static func microseconds(_ seconds: Double) -> Int64 {
    seconds.isFinite && seconds > 0 ? Int64(min(seconds, 1e12) * 1_000_000) : 0
  }

  private static func withCString<T>(_ text: String?, _ body: (UnsafePointer<CChar>?) -> T) -> T {
    guard let text else { return body(nil) }
    return text.withCString { body($0) }
  }
}
