#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// Seconds on the monotonic clock: the one clock for deadlines, intervals and rates, because
/// wall-clock time can jump (NTP, a user setting the date) and would stretch or cut them.
public enum MonotonicClock {
  /// Seconds since an arbitrary fixed point (boot), never going backwards.
  public static func seconds() -> Double {
    var now = timespec()
    clock_gettime(CLOCK_MONOTONIC, &now)
    return Double(now.tv_sec) + Double(now.tv_nsec) / 1e9
  }
}
