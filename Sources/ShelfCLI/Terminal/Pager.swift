#if canImport(Glibc)
  import Glibc
#endif

/// Long text for a terminal, handed to the user's pager.
enum Pager {
  /// Pipes `text` through `$PAGER` (default `less -R`); false when no pager could run.
  static func page(_ text: String, environment: [String: String]) -> Bool {
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
    let bytes = Array(text.utf8)
    bytes.withUnsafeBytes { raw in
      var offset = 0
      while offset < raw.count {
        let written = write(fds[1], raw.baseAddress! + offset, raw.count - offset)
        if written < 0 {
          if errno == EINTR { continue }
          break
        }
        offset += written
      }
    }
    close(fds[1])
    var status: Int32 = 0
    while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
    return true
  }
}
