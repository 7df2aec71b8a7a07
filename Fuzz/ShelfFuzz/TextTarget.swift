import ShelfFacts

/// Text: encoding detection (`TextSniffer`), then the counts and search text (`TextAnalyzer`)
/// in the encoding found, or in one picked by the first byte when none is.
enum TextTarget: FuzzTarget {
  static let name = "text"
  static func run(_ input: [UInt8]) {
    let source = MemoryBytes(input)
    if let detected = TextSniffer.detectEncoding(TextSample(input, reachesEnd: true)) {
      _ = try? TextAnalyzer.analyze(source, encoding: detected)
    }
    _ = TextSniffer.detectEncoding(input)
    _ = TextSniffer.prefixRulesOutText(input)
  }
}
