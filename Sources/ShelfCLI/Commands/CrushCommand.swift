/// `shelf crush`: Optimize PNG files losslessly.
enum CrushCommand {
  static let command = Command(
    name: "crush",
    abstract: "Optimize PNG files losslessly.",
    discussion: """
      Every output is decoded again and compared with the input before it is written.
      """,
    arguments: [ArgumentSpec("file", help: "PNG files or folders.", repeating: true)],
    options: [
      OptionSpec("out-dir", short: "o", value: "dir", help: "Write results into <dir>.", completion: .directory),
      OptionSpec("in-place", help: "Replace each file with its crushed version."),
      OptionSpec("recursive", short: "r", help: "Recurse into folders."),
      OptionSpec("level", value: "level", help: "Effort.", choices: ["0", "1", "2", "3", "4", "5", "6", "max"], defaultValue: "2"),
    ],
    examples: [Example("shelf crush -o out icon.png", "Write out/icon.png.")],
    run: { _ in throw PendingCommandError(name: "crush") })
}
