/// `shelf index`: Add folders to the catalogue and scan them for changes.
enum IndexCommand {
  static let command = Command(
    name: "index",
    abstract: "Add folders to the catalogue and scan them for changes.",
    discussion: """
      Each root is walked, every file's type is detected by content and its metadata extracted into the SQLite catalogue. Unchanged files are not read again. Without a root, every known root is rescanned.
      """,
    arguments: [ArgumentSpec("root", help: "A folder to add and scan.", optional: true, repeating: true, completion: .directory)],
    options: [
      OptionSpec("full", help: "Ignore what is known and re-extract every file."),
      OptionSpec("exclude", value: "glob", help: "Skip paths matching <glob>; may be repeated.", repeatable: true, completion: Completion.none),
      OptionSpec("jobs", short: "j", value: "n", help: "Extract with <n> workers.", completion: Completion.none),
      OptionSpec("follow-links", help: "Follow symbolic links that stay inside the root."),
      OptionSpec("progress", value: "when", help: "Show a progress bar.", choices: ["auto", "always", "never"], defaultValue: "auto"),
    ],
    examples: [Example("shelf index ~/Sandbox", "Catalogue a sandbox.")],
    run: { _ in throw PendingCommandError(name: "index") })
}
