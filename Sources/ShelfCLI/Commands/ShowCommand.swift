/// `shelf show`: Render a file for the terminal: text, plist, image preview or audio summary.
enum ShowCommand {
  static let command = Command(
    name: "show",
    abstract: "Render a file for the terminal: text, plist, image preview or audio summary.",
    discussion: """
      Text is converted to UTF-8, plists are pretty-printed, images are drawn with half-block characters in true colour, audio is summarised with a waveform line.
      """,
    arguments: [ArgumentSpec("path", help: "The file to show.")],
    options: [
      OptionSpec("json", help: "Print plists as JSON."),
    ],
    examples: [Example("shelf show Documents/Notes/todo.txt", "Show a note.")],
    run: { _ in throw PendingCommandError(name: "show") })
}
