import ShelfAudio

/// AMR-NB and AMR-WB frame walks (`AMRScanner.scan`).
enum AMRTarget: FuzzTarget {
  static let name = "amr"
  static func run(_ input: [UInt8]) {
    _ = try? AMRScanner.scan(FuzzInput.file(input))
  }
}
