/// A labelled entry of a preformatted list in a manual page (`  names            kind, mime…`):
/// the label in a column of its own, the text wrapped beside it.
enum ManualColumns {
  /// `text` after `label` (indented by two, padded to `labelWidth`), wrapped at `width` with the
  /// following lines indented to the text.
  static func entry(_ label: String, _ text: String, labelWidth: Int, width: Int) -> String {
    let indent = String(repeating: " ", count: 2 + labelWidth)
    var lines: [String] = []
    var line = "  " + label + String(repeating: " ", count: max(1, labelWidth - label.count))
    var lineHasWords = false
    for word in text.split(separator: " ") {
      if lineHasWords && line.count + 1 + word.count > width {
        lines.append(line)
        line = indent
        lineHasWords = false
      }
      line += (lineHasWords ? " " : "") + word
      lineHasWords = true
    }
    lines.append(line)
    return lines.joined(separator: "\n")
  }
}
