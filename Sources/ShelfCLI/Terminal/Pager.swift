#if canImport(Glibc)
  import Glibc
#endif

/// Long text for a terminal, handed to the user's pager.
enum Pager {
  /// Pipes `first`, then each piece `next` gives until nil, through `$PAGER` (default
  /// `less -R`), and waits for it; false when no pager could run (nothing was written then).
  /// A pager that quits early ends the reading: `next` is not asked again.
  static func page(_ first: String, then next: () throws -> String?, environment: [String: String]) rethrows
    -> Bool
  {
    let pager = environment["PAGER"].flatMap { $0.isEmpty ? nil : $0 } ?? "less -R"
    var fds: [Int32] = [0, 0]
    guard pipe(&fds) == 0 else { return false }
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_adddup2(&actions, fds[0], STDIN_FILENO)
    posix_spawn_file_actions_addclose(&actions, fds[1])
    posix_spawn_file_actions_addclose(&actions, fds[0])
    let argv: [UnsafeMutablePointer<CChar>?] = [strdup("/bin/sh"), strdup("-c"), strdup(pager), nil]
    defer { argv.forEach { free($0) } }
    var pid: pid_t = 0
    let spawned = posix_spawn(&pid, "/bin/sh", &actions, nil, argv, environ)
    close(fds[0])
    guard spawned == 0 else {
      close(fds[1])
      return false
    }
    signal(SIGPIPE, SIG_IGN)
    defer {
      close(fds[1])
      var status: Int32 = 0
      while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
    }
    var piece: String? = first
    while let text = piece, write(text, to: fds[1]) { piece = try next() }
    return true
  }

  /// Writes all of `text`; false when the pager is gone.
  private static func write(_ text: String, to descriptor: Int32) -> Bool {
    Array(text.utf8).withUnsafeBytes { raw in
      var offset = 0
      while offset < raw.count {
        let written = Glibc.write(descriptor, raw.baseAddress! + offset, raw.count - offset)
        if written < 0 {
          if errno == EINTR { continue }
          return false
        }
        offset += written
      }
      return true
    }
  }
}
