import ShelfAudio
import ShelfCatalog
import ShelfCore
import ShelfFacts
import Testing

@testable import ShelfCLI

@Suite struct ListingLayoutTests {
  private let columns = [
    ListingColumn(header: "KIND", rightAligned: false), ListingColumn(header: "SIZE", rightAligned: true),
    ListingColumn(header: "FACTS", rightAligned: false),
  ]
  private let rows = [
    ListingRow(
      path: "Documents/Photos/2024/Holidays/IMG_0001.PNG", style: "35",
      cells: ["image", "4.5 KiB", "120×120 rgba"]),
    ListingRow(path: "notes.txt", style: nil, cells: ["text", "12 B", "utf-8 1 line"]),
  ]

  private func rendered(_ layout: ListingLayout) -> String {
    var text = ""
    layout.render(rows) { text += $0 }
    return text
  }

  @Test func pipesGetWholeRowsWithoutHeaderOrColourWhateverTheWidth() {
    let text = rendered(ListingLayout(columns: columns, isTerminal: false, width: 20))
    #expect(
      text == """
        Documents/Photos/2024/Holidays/IMG_0001.PNG  image  4.5 KiB  120×120 rgba
        notes.txt                                    text      12 B  utf-8 1 line

        """)
  }

  @Test func terminalsGetAHeaderAndRowsCutToTheWidth() {
    let text = rendered(ListingLayout(columns: columns, isTerminal: true, width: 60))
    #expect(
      text == """
        PATH                          KIND      SIZE  FACTS
        \u{1B}[35m…/2024/Holidays/IMG_0001.PNG\u{1B}[0m  image  4.5 KiB  120×120 rgba
        notes.txt                     text      12 B  utf-8 1 line

        """)
    for line in text.split(separator: "\n") {
      let visible = line.replacingOccurrences(of: "\u{1B}[35m", with: "").replacingOccurrences(
        of: "\u{1B}[0m", with: "")
      #expect(TextLayout.displayWidth(visible) <= 60)
    }
  }

  @Test func aNarrowTerminalKeepsFileNamesWholeAndCutsTheFacts() {
    let text = rendered(ListingLayout(columns: columns, isTerminal: true, width: 44))
    let lines = text.split(separator: "\n").map(String.init)
    #expect(lines[0] == "PATH            KIND      SIZE  FACTS")
    #expect(lines[1] == "\u{1B}[35m…/IMG_0001.PNG\u{1B}[0m  image  4.5 KiB  120×120 rgba")
    #expect(lines[2] == "notes.txt       text      12 B  utf-8 1 line")
    let narrower = rendered(ListingLayout(columns: columns, isTerminal: true, width: 40))
    #expect(
      narrower == """
        PATH            KIND      SIZE  FACTS
        \u{1B}[35m…/IMG_0001.PNG\u{1B}[0m  image  4.5 KiB  120×120…
        notes.txt       text      12 B  utf-8 1…

        """)
  }

  @Test func truncationKeepsBothEndsAndCountsWideCharacters() {
    #expect(TextLayout.truncateMiddle("abcdefghij", to: 7) == "abc…hij")
    #expect(TextLayout.truncateMiddle("abcdefghij", to: 6) == "ab…hij")
    #expect(TextLayout.truncateMiddle("abcdefghij", to: 10) == "abcdefghij")
    #expect(TextLayout.truncateMiddle("写真写真写真.png", to: 9) == "写真….png")
    #expect(TextLayout.truncateMiddle("写真写真写真.png", to: 8) == "写….png")
    #expect(TextLayout.truncateEnd("abcdefghij", to: 5) == "abcd…")
  }

  @Test func pathsAreRelativeInsideTheRootHoldingTheCurrentFolder() {
    let paths = ListingPaths(
      currentFolder: RawPath("/media/root/Documents"), roots: [RawPath("/media/root"), RawPath("/other")])
    #expect(paths.shown(RawPath("/media/root/Documents/a.png")).escaped == "a.png")
    #expect(paths.shown(RawPath("/media/root/Documents/Notes/b.txt")).escaped == "Notes/b.txt")
    #expect(paths.shown(RawPath("/media/root/Library/c.plist")).escaped == "../Library/c.plist")
    #expect(paths.shown(RawPath("/other/d.wav")).escaped == "/other/d.wav")
    let outside = ListingPaths(currentFolder: RawPath("/home/user"), roots: [RawPath("/media/root")])
    #expect(outside.shown(RawPath("/media/root/Documents/a.png")).escaped == "/media/root/Documents/a.png")
    // A folder whose name merely starts like the root's is not inside it.
    let sibling = ListingPaths(currentFolder: RawPath("/media/root2"), roots: [RawPath("/media/root")])
    #expect(sibling.shown(RawPath("/media/root/a.png")).escaped == "/media/root/a.png")
  }

  @Test func lsColorsLinksExecutablesAndSuffixesComeBeforeKindColours() {
    let colors = PathColors(lsColors: "di=01;34:ln=01;36:ex=01;32:*.png=01;35:*.TXT=00;33:bogus:*.x=rm -rf")
    func style(_ path: String, _ kind: FileKind, link: Bool = false, executable: Bool = false) -> String? {
      colors.style(path: RawPath(path), kind: kind, failed: false, isLink: link, isExecutable: executable)
    }
    #expect(style("/a/photo.PNG", .image) == "01;35")
    #expect(style("/a/notes.txt", .text) == "00;33")
    #expect(style("/a/tone.wav", .audio, link: true) == "01;36")
    #expect(style("/a/run.sh", .text, executable: true) == "01;32")
    // As in GNU ls, a link or an executable takes its colour before its name suffix does.
    #expect(style("/a/photo.png", .image, executable: true) == "01;32")
    #expect(style("/a/photo.png", .image, link: true) == "01;36")
    #expect(style("/a/tone.wav", .audio) == "36")
    #expect(style("/a/settings.plist", .plist) == "33")
    #expect(style("/a/data.bin", .other) == nil)
    #expect(style("/a/evil.x", .other) == nil)
    #expect(colors.needsFileModes)
    let plain = PathColors(lsColors: nil)
    #expect(!plain.needsFileModes)
    #expect(
      plain.style(path: RawPath("/a/bad.png"), kind: .image, failed: true, isLink: false, isExecutable: false)
        == "31")
  }

  @Test func templatesAcceptEveryQueryFieldAndRefuseUnknownOnes() throws {
    // copies and copy-in are answered by comparing contents for a query, not kept with entries.
    for field in CatalogQuery.fieldNames where !CatalogQuery.contentComparisonFields.contains(field) {
      #expect(throws: Never.self, "\(field)") { try ListingTemplate("{\(field)}") }
    }
    #expect(throws: ListingTemplate.Invalid(reason: "unknown field 'artst'; did you mean 'artist'?")) {
      try ListingTemplate("{artst} - {title}")
    }
    #expect(throws: ListingTemplate.Invalid(reason: "unclosed '{' (write '{{' for a literal brace)")) {
      try ListingTemplate("{title")
    }
    var facts = FileFacts(kind: .audio, mime: "audio/flac", detectedBy: .content, extensionMismatch: false)
    facts.audio = AudioFileInfo(
      duration: 185.2, sampleRate: 44100, channels: 2, frames: 8_167_320, formatName: "flac",
      encodingName: "",
      bitsPerSample: nil, isLossless: true, tags: AudioTags(title: "Song"), container: "flac")
    let entry = CatalogEntry(
      path: RawPath("/m/a song.flac"), root: RawPath("/m"), area: .other, size: 1234, mtimeNanoseconds: 0,
      facts: facts)
    let template = try ListingTemplate("{artist} - {title} ({duration}) {{{size}}} {name} {width}|")
    #expect(String(decoding: template.render(entry), as: UTF8.self) == " - Song (3:05) {1234} a song.flac |")
  }
}
