import Foundation
import ShelfTestSupport
import Testing

/// `info` and `show` on files that are not what their size or their end says: /proc files
/// report no size but hold text; a JPEG cut short still holds most of its picture.
@Suite struct UnsizedAndDamagedFilesTests {
  @Test func aProcFileIsDescribedAndShownByWhatItHolds() throws {
    let info = try ShelfProcess.run(["info", "/proc/self/status"])
    #expect(info.status == 0, "\(info.stderr)")
    #expect(info.stderr == "")
    let rows = info.stdout.split(separator: "\n").map(String.init)
    #expect(rows.contains("kind:         text"))
    #expect(rows.contains("encoding:     ascii"))
    #expect(rows.contains("first line:   Name:\\tshelf"))
    let show = try ShelfProcess.run(["show", "/proc/self/status"])
    #expect(show.status == 0, "\(show.stderr)")
    #expect(show.stdout.hasPrefix("Name:\tshelf\nUmask:\t"))
    #expect(show.stdout.contains("\nPid:\t"))
    // A file that is really empty is still refused.
    let scratch = try TemporaryDirectory()
    let empty = try scratch.write("empty.txt", [])
    let refused = try ShelfProcess.run(["info", empty])
    #expect(refused.status == 65)
    #expect(refused.stderr == "error: \(empty): file is empty\n")
  }

  @Test func aTruncatedJPEGIsShownAsFarAsItDecodesWithAWarning() throws {
    let scratch = try TemporaryDirectory()
    let whole = try scratch.copy(fromRepository: "SampleMedia/Documents/Camera/DSC01234.JPG", as: "whole.jpg")
    let bytes = try Array(Data(contentsOf: URL(fileURLWithPath: whole)))
    let cut = try scratch.write("cut.jpg", Array(bytes.prefix(bytes.count * 6 / 10)))
    let arguments = ["show", "--graphics", "blocks", "--color", "never", "--width", "16"]
    let reference = try ShelfProcess.run(arguments + [whole])
    #expect(reference.status == 0)
    let shown = try ShelfProcess.run(arguments + [cut])
    #expect(shown.status == 0)
    #expect(shown.stderr == "warning: \(cut): Premature end of JPEG file; shown as far as it decodes\n")
    // The rows the cut file still holds are drawn as the whole file's are; the size is its own.
    let rows = shown.stdout.split(separator: "\n", omittingEmptySubsequences: false)
    let referenceRows = reference.stdout.split(separator: "\n", omittingEmptySubsequences: false)
    #expect(rows.count == 8 && referenceRows.count == 8)
    #expect(rows.prefix(2) == referenceRows.prefix(2))
    #expect(rows[2] != referenceRows[2])
    #expect(rows[6] == "128×96")
    // info lists it without an error, as before.
    let info = try ShelfProcess.run(["info", cut])
    #expect(info.status == 0)
  }
}
