import ShelfFacts

/// Text: encoding detection (`TextSniffer`), then the counts and search text (`TextAnalyzer`)
/// in the encoding found, or in one picked by the first byte when none is; and detection from
/// the segments of a "long" file (the input, with segments of 256 bytes past 1 KiB), which the
/// whole-file UTF-8 check completes.
enum TextTarget: FuzzTarget {
  static let name = "text"
  static func run(_ input: [UInt8]) {
    let source = MemoryBytes(input)
    if let detected = TextSniffer.detectEncoding(TextSample(input, reachesEnd: true)) {
      _ = try? TextAnalyzer.analyze(source, encoding: detected)
    }
    _ = TextSniffer.detectEncoding(input)
    _ = TextSniffer.prefixRulesOutText(input)
    if let sampled = try? TextSample(reading: source, wholeFileLimit: 1024, segmentLength: 256) {
      _ = TextSniffer.detectEncoding(sampled)
    }
  }
}
