#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// Runs blocking work (ALSA reads and writes, libsndfile, file I/O, a PNG crush) on a thread of
/// its own, so that the shared async pool is never held up by a device or a long computation.
public enum BlockingThread {
  private final class Box {
    let body: () -> Void
    init(_ body: @escaping () -> Void) { self.body = body }
  }

  /// Starts `body` on a new detached thread.
  public static func start(_ body: @escaping @Sendable () -> Void) {
    let box = Unmanaged.passRetained(Box(body)).toOpaque()
    var thread = pthread_t()
    var attributes = pthread_attr_t()
    pthread_attr_init(&attributes)
    pthread_attr_setdetachstate(&attributes, Int32(PTHREAD_CREATE_DETACHED))
    let code = pthread_create(
      &thread, &attributes,
      { raw in
        guard let raw else { return nil }
        let box = Unmanaged<Box>.fromOpaque(raw).takeRetainedValue()
        box.body()
        return nil
      }, box)
    pthread_attr_destroy(&attributes)
    if code != 0 {
      // No thread available: run inline rather than lose the work.
      Unmanaged<Box>.fromOpaque(box).takeRetainedValue().body()
    }
  }

  /// Runs `body` on a new thread and resumes the caller with its result.
  public static func run<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
    await withCheckedContinuation { continuation in
      start { continuation.resume(returning: body()) }
    }
  }
}
