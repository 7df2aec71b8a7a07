/// `shelf stats`: Summarise the catalogue by kind and by area.
enum StatsCommand {
  static let command = Command(
    name: "stats",
    abstract: "Summarise the catalogue by kind and by area.",
    discussion: """
      Counts, total size and total duration.
      """,
    arguments: [],
    options: [
      OptionSpec("json", help: "Print the summary as JSON."),
    ],
    examples: [Example("shelf stats", "Summarise the catalogue.")],
    run: { _ in throw PendingCommandError(name: "stats") })
}
