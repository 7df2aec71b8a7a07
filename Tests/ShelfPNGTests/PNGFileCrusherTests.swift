import Foundation
import ShelfCore
import ShelfPNG
import ShelfTestSupport
import Testing

/// The crush pipeline without the binary: output naming, the in-place and symbolic-link rules,
/// refused duplicate outputs, typed per-file reports, and outputs byte-identical to the
/// optimizer's.
@Suite struct PNGFileCrusherTests {
  static func contents(_ path: String) -> [UInt8] {
    [UInt8](FileManager.default.contents(atPath: path) ?? Data())
  }

  @Test func outputsAreNamedUnderTheFolderAndDuplicatesAreRefused() {
    let crusher = PNGFileCrusher(settings: PNGCrushSettings(destination: .folder(RawPath("out"))))
    let plan = crusher.plan([
      PNGCrushInput(path: RawPath("a/x.png")),
      PNGCrushInput(path: RawPath("tree/sub/y.png"), outputName: RawPath("sub/y.png")),
      PNGCrushInput(path: RawPath("b/x.png")),
    ])
    #expect(
      plan.jobs == [
        PNGCrushJob(input: RawPath("a/x.png"), output: RawPath("out/x.png")),
        PNGCrushJob(input: RawPath("tree/sub/y.png"), output: RawPath("out/sub/y.png")),
      ])
    #expect(
      plan.refused == [
        FileError(
          path: RawPath("b/x.png"), reason: "its output out/x.png is also another input's output",
          failure: .cannotCreate)
      ])
    // A dry run writes nothing, so nothing collides.
    let dry = PNGFileCrusher(settings: PNGCrushSettings(destination: .folder(RawPath("out")), dryRun: true))
    #expect(
      dry.plan([PNGCrushInput(path: RawPath("a/x.png")), PNGCrushInput(path: RawPath("b/x.png"))]).jobs.count
        == 2)
  }

  @Test func inPlaceThroughALinkWritesTheLinkTarget() throws {
    let scratch = try TemporaryDirectory()
    try scratch.write("real.png", Fixtures.bytes("basi6a08.png"))
    try FileManager.default.createSymbolicLink(
      atPath: scratch.file("link.png"), withDestinationPath: "real.png")
    let crusher = PNGFileCrusher(settings: PNGCrushSettings(destination: .inPlace))
    let plan = crusher.plan([PNGCrushInput(path: scratch.raw("link.png"))])
    #expect(plan.jobs == [PNGCrushJob(input: scratch.raw("link.png"), output: scratch.raw("real.png"))])
    let report = crusher.crush(plan.jobs[0])
    #expect(report.written)
    #expect(try FileManager.default.destinationOfSymbolicLink(atPath: scratch.file("link.png")) == "real.png")
    #expect(
      Self.contents(scratch.file("real.png"))
        == (try PNGOptimizer().optimize(bytes: Fixtures.bytes("basi6a08.png")).bytes))
  }

  @Test func runReportsEveryFileInOrderAndWritesWhatTheOptimizerMade() async throws {
    let scratch = try TemporaryDirectory()
    let names = ["basn2c08.png", "basi3p04.png", "basn6a16.png"]
    for name in names { try scratch.write("in/" + name, Fixtures.bytes(name)) }
    try scratch.write("in/bad.png", Array("not a png".utf8))
    let inputs = (names + ["bad.png"]).map { PNGCrushInput(path: scratch.raw("in/" + $0)) }
    let settings = PNGCrushSettings(destination: .folder(scratch.raw("out")), width: 2)
    let crusher = PNGFileCrusher(settings: settings)
    let counted = Counter()
    let reports = await crusher.run(crusher.plan(inputs).jobs) { _, finished in counted.set(finished) }
    #expect(counted.value == 4)
    #expect(reports.map(\.job.input) == inputs.map(\.path))
    for (index, name) in names.enumerated() {
      let expected = try PNGOptimizer().optimize(bytes: Fixtures.bytes(name))
      #expect(reports[index].error == nil)
      #expect(reports[index].written)
      #expect(reports[index].sizeBefore == Fixtures.bytes(name).count)
      #expect(reports[index].sizeAfter == expected.bytes.count)
      #expect(Self.contents(scratch.file("out/" + name)) == expected.bytes, "\(name)")
    }
    let failure = try #require(reports[3].error as? PNGError)
    #expect(failure == PNGError(.notPNG, path: scratch.raw("in/bad.png")))
    #expect(!FileManager.default.fileExists(atPath: scratch.file("out/bad.png")))
    #expect(Self.contents(scratch.file("in/bad.png")) == Array("not a png".utf8))
  }

  @Test func inPlaceLeavesAFileThatCannotShrinkAlone() throws {
    let scratch = try TemporaryDirectory()
    let once = try PNGOptimizer().optimize(bytes: Fixtures.bytes("basn2c08.png")).bytes
    let path = try scratch.write("optimal.png", once)
    let before = try FileStatus.stat(RawPath(path))
    let crusher = PNGFileCrusher(settings: PNGCrushSettings(destination: .inPlace))
    let report = crusher.crush(PNGCrushJob(input: RawPath(path), output: RawPath(path)))
    #expect(report.error == nil)
    #expect(!report.changed)
    #expect(!report.written)
    #expect(try FileStatus.stat(RawPath(path)).inode == before.inode)
    #expect(Self.contents(path) == once)
  }
}

/// The highest progress count seen, set from the crusher's worker tasks.
private final class Counter: @unchecked Sendable {
  private let lock = NSLock()
  private var highest = 0
  func set(_ value: Int) { lock.withLock { highest = max(highest, value) } }
  var value: Int { lock.withLock { highest } }
}
