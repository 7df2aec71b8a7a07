import CFuzzDriver

#if canImport(Glibc)
  import Glibc
#endif

/// One fuzz target: a name (its corpus, dictionary and crash folders are named after it) and a
/// function that feeds one input to a parser entry point. Throwing is fine; trapping is a crash.
protocol FuzzTarget {
  static var name: String { get }
  static func run(_ input: [UInt8])
}

/// Every target, in the order `make fuzz` runs them. Adding one: a file in this folder, a line
/// here and a seed rule in scripts/fuzz.sh.
let fuzzTargets: [any FuzzTarget.Type] = [
  PlistTarget.self, SniffTarget.self, ImageHeaderTarget.self, EXIFTarget.self, HEIFTarget.self,
  JPEG2000Target.self, TIFFTarget.self, TextTarget.self, MP3Target.self, AMRTarget.self,
  MusepackTarget.self, ADIFTarget.self, ShortenTarget.self, WAVTarget.self, MBDBTarget.self,
  LegacyManifestTarget.self, KeybagTarget.self,
  ManifestRecordTarget.self, PNGChunkTarget.self, CgBITarget.self, QueryTarget.self, GlobTarget.self,
  ExtractTarget.self, CueSheetTarget.self, PlaylistTarget.self, WireTarget.self,
]

/// The selected target (set once by `fuzzerInitialize`, before the first input).
nonisolated(unsafe) var selectedTarget: (any FuzzTarget.Type)?

/// libFuzzer's start-up hook: `shelf-fuzz TARGET [libFuzzer arguments]` takes the target's
/// name out of the arguments (or from `SHELF_FUZZ_TARGET`, which is then set for the child
/// processes libFuzzer starts, such as those of `-minimize_crash=1`).
@_cdecl("LLVMFuzzerInitialize")
public func fuzzerInitialize(
  _ argc: UnsafeMutablePointer<CInt>,
  _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>
) -> CInt {
  var name = getenv("SHELF_FUZZ_TARGET").map { String(cString: $0) }
  if argc.pointee > 1, let arguments = argv.pointee, let first = arguments[1] {
    let word = String(cString: first)
    if fuzzTargets.contains(where: { $0.name == word }) {
      name = word
      // Drop the name: libFuzzer reads the rest.
      for index in 1..<Int(argc.pointee) { arguments[index] = arguments[index + 1] }
      argc.pointee -= 1
    }
  }
  guard let name, let target = fuzzTargets.first(where: { $0.name == name }) else {
    print("usage: shelf-fuzz TARGET [libFuzzer options] [corpus folders or files]")
    print("targets: " + fuzzTargets.map { $0.name }.joined(separator: " "))
    exit(64)
  }
  setenv("SHELF_FUZZ_TARGET", name, 1)
  selectedTarget = target
  return 0
}

/// libFuzzer's callback: one input to the selected target.
func testOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
  let bytes = data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? []
  selectedTarget!.run(bytes)
  return 0
}

/// Starts libFuzzer, which calls `fuzzerInitialize` first, then `testOneInput` per input.
@main
enum ShelfFuzz {
  static func main() {
    var argc = CommandLine.argc
    var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
    exit(LLVMFuzzerRunDriver(&argc, &argv, testOneInput))
  }
}
