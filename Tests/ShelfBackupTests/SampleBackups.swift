import Foundation
import ShelfBackup
import ShelfCore
import ShelfTestSupport

/// The backups scripts/make-backups.py wrote under SampleMedia/Backups and the facts it
/// recorded about them (Tests/Fixtures/sample-backups.json).
enum SampleBackups {
  struct Entry: Sendable {
    let domain: String
    let path: String
    let type: String
    let fileID: String
    let size: Int
    let source: String?
    let target: String?
    let protectionClass: Int?
  }

  struct Facts: Sendable {
    let era: String
    let format: String
    let encrypted: Bool
    let deviceName: String
    let productType: String
    let iosVersion: String
    let date: String
    let finished: Bool?
    let apps: [String]
    let entries: [Entry]
  }

  static let repositoryRoot = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

  /// The test password and every era's facts, as the generator wrote them.
  static let fixture: (password: String, backups: [String: Facts]) = {
    let url = repositoryRoot.appendingPathComponent("Tests/Fixtures/sample-backups.json")
    guard let data = try? Data(contentsOf: url),
      let root = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
      let backups = root["backups"] as? [String: [String: Any]]
    else { return ("", [:]) }
    return (root["password"] as? String ?? "", backups.mapValues(facts(from:)))
  }()

  /// The test password of the encrypted samples.
  static var password: String { fixture.password }

  /// The eras, in a fixed order.
  static let eras = [
    "manifest-db", "manifest-db-encrypted", "mbdb", "mbdb-encrypted", "mdinfo", "mdinfo-encrypted",
    "mdbackup",
  ]

  static func facts(_ era: String) -> Facts? { fixture.backups[era] }

  private static func facts(from backup: [String: Any]) -> Facts {
    let entries = (backup["entries"] as? [[String: Any]] ?? []).map { entry in
      Entry(
        domain: entry["domain"] as? String ?? "", path: entry["path"] as? String ?? "",
        type: entry["type"] as? String ?? "", fileID: entry["file_id"] as? String ?? "",
        size: entry["size"] as? Int ?? -1, source: entry["source"] as? String,
        target: entry["target"] as? String, protectionClass: entry["protection_class"] as? Int)
    }
    return Facts(
      era: backup["era"] as? String ?? "", format: backup["format"] as? String ?? "",
      encrypted: backup["encrypted"] as? Bool ?? false,
      deviceName: backup["device_name"] as? String ?? "",
      productType: backup["product_type"] as? String ?? "",
      iosVersion: backup["ios_version"] as? String ?? "", date: backup["date"] as? String ?? "",
      finished: backup["finished"] as? Bool, apps: backup["apps"] as? [String] ?? [], entries: entries)
  }

  /// The committed backup folder of an era.
  static func folder(_ era: String) -> String {
    repositoryRoot.appendingPathComponent("SampleMedia/Backups/" + era).path
  }

  /// The bytes of a SampleMedia file.
  static func sample(_ relative: String) throws -> [UInt8] {
    Array(try Data(contentsOf: repositoryRoot.appendingPathComponent("SampleMedia/" + relative)))
  }

  static func password(for era: String) -> BackupPassword? {
    era.hasSuffix("encrypted") ? BackupPassword(bytes: Array(password.utf8)) : nil
  }

  /// Opens a committed sample backup.
  static func open(_ era: String) throws -> Backup {
    try Backup(folder: RawPath(folder(era)), password: password(for: era))
  }

  /// Copies a committed backup into `scratch` (to damage it) and returns the copy's path.
  static func copy(_ era: String, into scratch: TemporaryDirectory) throws -> String {
    let destination = scratch.file(era)
    try FileManager.default.copyItem(atPath: folder(era), toPath: destination)
    return destination
  }

  /// Builds a backup with the project's generator (`--era`, `--hostile`) inside `scratch`; with
  /// `largeCopy`, the backup also holds a 2.5 MiB video whose content is written there.
  static func generate(
    _ era: String, hostile: String?, largeCopy: String? = nil, into scratch: TemporaryDirectory
  ) throws -> String {
    let destination = scratch.file(era + "-" + (hostile ?? "plain"))
    var arguments = [
      repositoryRoot.appendingPathComponent("scripts/make-backups.py").path, "--era", era, "--out",
      destination,
    ]
    if let hostile { arguments += ["--hostile", hostile] }
    if let largeCopy { arguments += ["--large", largeCopy] }
    let result = try Python.run(arguments)
    guard result.status == 0 else { throw GeneratorFailure(message: result.stderr) }
    return destination
  }

  struct GeneratorFailure: Error, CustomStringConvertible {
    var message: String
    var description: String { "make-backups.py failed: \(message)" }
  }
}

/// Runs python3 (the generator and the independent readers from PyPI).
enum Python {
  struct Result {
    var status: Int32
    var stdout: String
    var stderr: String
  }

  static func run(_ arguments: [String]) throws -> Result {
    let scratch = try TemporaryDirectory()
    let errorPath = scratch.file("stderr")
    _ = FileManager.default.createFile(atPath: errorPath, contents: nil)
    let errors = try FileHandle(forWritingTo: URL(fileURLWithPath: errorPath))
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = ["python3"] + arguments
    let output = Pipe()
    process.standardOutput = output
    // stderr goes to a file, so a chatty child cannot block on a pipe nobody reads.
    process.standardError = errors
    try process.run()
    let outData = output.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    try errors.close()
    let errorData = (try? Data(contentsOf: URL(fileURLWithPath: errorPath))) ?? Data()
    return Result(
      status: process.terminationStatus, stdout: String(decoding: outData, as: UTF8.self),
      stderr: String(decoding: errorData, as: UTF8.self))
  }

  /// True when python3 can import `module` (the PyPI readers scripts/setup.sh installs).
  static func has(_ module: String) -> Bool {
    ((try? run(["-c", "import " + module]))?.status ?? 1) == 0
  }
}
