import Foundation
import ShelfCore
import Synchronization

/// A fresh folder under /tmp for one test, removed with its contents when the value goes away;
/// shared by every test target so that fixtures are always copied somewhere disposable.
public final class TemporaryDirectory: Sendable {
  /// The folder's absolute path.
  public let path: String

  /// Creates the folder (`mkdtemp`).
  public init() throws {
    var template = Array("/tmp/shelf-test-XXXXXX".utf8CString)
    guard let made = template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) else {
      throw FileError(path: RawPath("/tmp"), errno: errno, doing: "mkdtemp failed")
    }
    path = String(cString: made)
  }

  deinit { try? FileManager.default.removeItem(atPath: path) }

  /// A folder for fixtures the whole test process shares (held in a `static let`, whose deinit
  /// never runs): removed when the process exits instead.
  public static func forProcess() throws -> TemporaryDirectory {
    let folder = try TemporaryDirectory()
    RemovedAtExit.add(folder.path)
    return folder
  }

  /// The folder as a raw path.
  public var rawPath: RawPath { RawPath(path) }

  /// The path of `relative` inside the folder.
  public func file(_ relative: String) -> String { path + "/" + relative }

  /// The raw path of `relative` inside the folder.
  public func raw(_ relative: String) -> RawPath { RawPath(file(relative)) }

  /// Writes bytes to `relative` (creating its parent folders) and returns its path.
  @discardableResult
  public func write(_ relative: String, _ bytes: [UInt8]) throws -> String {
    let full = file(relative)
    try FileManager.default.createDirectory(
      atPath: (full as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
    try Data(bytes).write(to: URL(fileURLWithPath: full))
    return full
  }

  /// Creates the folder `relative` and its parents.
  public func makeDirectory(_ relative: String) throws {
    try FileManager.default.createDirectory(atPath: file(relative), withIntermediateDirectories: true)
  }
}

/// The folders `TemporaryDirectory.forProcess` made, removed by one `atexit` handler.
private enum RemovedAtExit {
  private static let paths = Mutex<[String]?>(nil)

  static func add(_ path: String) {
    paths.withLock { paths in
      if paths == nil {
        atexit {
          for path in RemovedAtExit.paths.withLock({ $0 ?? [] }) {
            try? FileManager.default.removeItem(atPath: path)
          }
        }
      }
      paths = (paths ?? []) + [path]
    }
  }
}
