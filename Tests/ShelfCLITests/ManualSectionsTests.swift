import Foundation
import Testing

@testable import ShelfCLI

/// The reference that used to live in the README is in the man pages: each command's page
/// carries its manual sections, shelf(1) carries the conventions, every section is on some
/// page, tables fit a standard terminal, and the committed pages render without roff warnings.
@Suite struct ManualSectionsTests {
  let manFolder = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("man")
  let pages = Dictionary(
    uniqueKeysWithValues: ManPageRenderer(commands: CommandTable.commands).pages().map {
      ($0.name, $0.content)
    })

  /// The sections each page must hold, by page file name.
  static let expected: [String: [String]] = [
    "shelf.1": ["CONVENTIONS", "THE CATALOGUE", "SIGNALS"],
    "shelf-index.1": ["WHAT IS STORED", "RESCANS", "SAFETY", "IPHONE BACKUPS"],
    "shelf-ls.1": ["QUERY SYNTAX", "OUTPUT", "JSON FIELDS"],
    "shelf-info.1": [
      "IMAGE FACTS", "PHOTOS", "LIVE PHOTOS", "AUDIO AND VIDEO FACTS", "TAGS", "TEXT ENCODINGS",
      "TEXT COUNTS",
    ],
    "shelf-show.1": ["IMAGE PREVIEWS"],
    "shelf-catalog.1": [
      "A SHARED CATALOGUE", "THE DATABASE", "SEVERAL MACHINES", "FAULTS", "PASSWORDS",
      "SETTING UP ONE SERVER FOR SEVERAL MACHINES",
    ],
    "shelf-extract.1": ["IPHONE BACKUPS", "READING BACKUP ENTRIES IN PLACE"],
    "shelf-crush.1": [
      "REDUCTIONS AND LEVELS", "METADATA", "ANIMATED PNG", "IPHONE-OPTIMIZED PNG (CGBI)", "SAFETY",
      "BAD INPUT", "REPORTS",
    ],
    "shelf-play.1": ["DECODING", "PLAYBACK", "ERRORS"],
    "shelf-record.1": ["THE FILE ON DISK"],
  ]

  /// Every section the manual files define.
  static let manualSections: [ManSection] =
    GeneralManual.sections + CatalogueManual.indexSections + CatalogueManual.lsSections
    + CatalogueManual.showSections + FactsManual.infoSections + SharedCatalogueManual.catalogSections
    + BackupManual.extractSections + PNGManual.crushSections + AudioManual.playSections
    + AudioManual.recordSections

  @Test func everyPageHasItsSections() throws {
    for (page, titles) in Self.expected {
      let content = try #require(pages[page], "no page \(page)")
      for title in titles {
        let found = content.contains(".SH \(title)\n")
        #expect(found, "\(page) lacks the section \(title)")
      }
    }
  }

  @Test func everyManualSectionIsOnAPage() {
    let all = pages.values.joined()
    for section in Self.manualSections {
      #expect(all.contains(".SH \(section.title.uppercased())\n"), "\(section.title) is on no page")
    }
  }

  @Test func theRootPageListsTheCataloguesServerStatusAndEnvironment() throws {
    let root = try #require(pages["shelf.1"])
    #expect(root.contains(".TP\n.B 69\nThe catalogue's PostgreSQL server cannot be reached.\n"))
    for name in ["SHELF_HOST", "SHELF_LOCK_WAIT", "SHELF_BACKUP_PASSWORD", "TMPDIR", "LS_COLORS"] {
      #expect(root.contains(".TP\n.B \(name)\n"), "shelf.1 lacks \(name) in ENVIRONMENT")
    }
  }

  /// Verbatim lines are indented 11 columns on the page: 69 characters fill 80 columns.
  @Test func tablesFitEightyColumns() {
    for section in Self.manualSections {
      for paragraph in HelpRenderer.paragraphs(section.body) where paragraph.hasPrefix("  ") {
        for line in paragraph.split(separator: "\n") {
          #expect(line.count - 2 <= 69, "\(section.title): '\(line)' is wider than 80 columns")
        }
      }
    }
  }

  @Test func committedPagesRenderWithoutWarnings() throws {
    let files = try FileManager.default.contentsOfDirectory(atPath: manFolder.path).filter {
      $0.hasSuffix(".1")
    }.sorted()
    #expect(files.count == pages.count)
    for file in files {
      let process = Process()
      process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
      process.arguments = ["man", "--warnings", "-l", manFolder.appendingPathComponent(file).path]
      var environment = ProcessInfo.processInfo.environment
      environment["MANPAGER"] = "cat"
      environment["LC_ALL"] = "C.UTF-8"
      process.environment = environment
      let errors = Pipe()
      process.standardOutput = FileHandle(forWritingAtPath: "/dev/null")
      process.standardError = errors
      try process.run()
      let text = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
      process.waitUntilExit()
      #expect(process.terminationStatus == 0, "man -l \(file) failed: \(text)")
      #expect(text.isEmpty, "man/\(file): \(text)")
    }
  }
}
