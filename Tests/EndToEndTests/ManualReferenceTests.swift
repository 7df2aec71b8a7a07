import Foundation
import Testing

/// The reference a README reader relied on reads in the installed manual: each committed page,
/// formatted by man(1) as `man shelf-COMMAND` shows it, holds the facts that moved there
/// from the README (exit statuses, JSON keys, formats, messages, set-up steps).
@Suite struct ManualReferenceTests {
  /// The text `man` shows for `man/NAME`, its white space collapsed so that phrases can be
  /// matched across line breaks; no hyphenation or justification.
  private func rendered(_ name: String) throws -> String {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    let page = ShelfProcess.repositoryRoot.appendingPathComponent("man/" + name).path
    process.arguments = ["man", "--nh", "--nj", "-l", page]
    var environment = ProcessInfo.processInfo.environment
    environment["MANPAGER"] = "cat"
    environment["MANWIDTH"] = "200"
    environment["LC_ALL"] = "C.UTF-8"
    environment.removeValue(forKey: "MAN_KEEP_FORMATTING")
    process.environment = environment
    let output = Pipe()
    process.standardOutput = output
    process.standardError = FileHandle(forWritingAtPath: "/dev/null")
    try process.run()
    let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    process.waitUntilExit()
    #expect(process.terminationStatus == 0, "man -l \(page) failed")
    return text.split(whereSeparator: \.isWhitespace).joined(separator: " ")
  }

  /// Phrases each page must show, by page.
  static let phrases: [(page: String, phrases: [String])] = [
    (
      "shelf.1",
      [
        "69 The catalogue's PostgreSQL server cannot be reached.",
        "error: photos/a.png: is a directory", #"printed escaped (\xff, \n)"#,
        "catalog.sqlite.corrupt", "SHELF_HOST The host name",
      ]
    ),
    (
      "shelf-index.1",
      [
        "within 3 seconds of the scan", "a media length beyond 2^50 frames",
        "more than 20,000,000 rounds", "in memory (/dev/shm) up to 64 MiB",
      ]
    ),
    (
      "shelf-ls.1",
      [
        "path_b64", "images magenta, audio cyan, video blue", "first_line",
        "backup domain, app, file_id, protection_class, mode",
      ]
    ),
    (
      "shelf-info.1",
      [
        "reported as iso-8859-14", "DateTimeOriginal and OffsetTimeOriginal", "iTunes' iTunSMPB",
        "TRUEVISION-XFILE footer", "U+2000 to U+200A", "com.apple.quicktime.content.identifier",
      ]
    ),
    ("shelf-show.1", ["fixed 6x7x6 palette", "'error: FILE: cannot decode image: REASON' (exit 65)"]),
    (
      "shelf-catalog.1",
      [
        "hostssl shelf shelf 192.168.1.0/24 scram-sha-256",
        "connection refused' (or libpq's reason), exit 69",
        "postgresql://me:***@nas/shelf", "SHELF_LOCK_WAIT seconds (2), then exits 75",
      ]
    ),
    (
      "shelf-extract.1",
      ["Extracted 5 of 5 files (100 KiB) in 0.02 s", "crush --in-place refuses a backup entry (exit 73)"]
    ),
    (
      "shelf-crush.1",
      [
        "cICP, mDCv, cLLi, sBIT and pHYs", "warning: a.png: dropped gAMA chunk at byte 33 (libpng: invalid)",
        "(v·255 + 32895) >> 16", "a.png: 164 bytes, grew 9.8 % (16 B); kept the original",
      ]
    ),
    ("shelf-play.1", ["S32 for 24 and 32-bit ones", "error: FILE: --start 5:00 is past the end (3:12)"]),
    (
      "shelf-record.1",
      ["encoder's 1024-sample delay", "kept current in WAV (RF64 too), AIFF, W64, AU and PCM CAF"]
    ),
  ]

  @Test(arguments: phrases.map(\.page))
  func pageHoldsItsReference(_ page: String) throws {
    let text = try rendered(page)
    let phrases = Self.phrases.first { $0.page == page }?.phrases ?? []
    for phrase in phrases {
      let found = text.contains(phrase)
      #expect(found, "man \(page) does not say: \(phrase)")
    }
  }
}
