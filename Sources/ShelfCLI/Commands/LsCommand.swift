/// `shelf ls`: List catalogued files that match a query.
enum LsCommand {
  static let command = Command(
    name: "ls",
    abstract: "List catalogued files that match a query.",
    discussion: """
      Terms combine with AND; see the QUERY SYNTAX section of the manual.
      """,
    arguments: [ArgumentSpec("query", help: "Query terms such as kind:image or size>1M.", optional: true, repeating: true, completion: Completion.none)],
    options: [
      OptionSpec("long", short: "l", help: "Show every column."),
      OptionSpec("json", help: "Print one JSON array."),
      OptionSpec("jsonl", help: "Print one JSON object per line."),
      OptionSpec("null", short: "0", help: "Print paths separated by NUL bytes, for xargs -0."),
      OptionSpec("sort", value: "field", help: "Sort by <field>, or <field>:desc.", completion: Completion.none),
      OptionSpec("limit", value: "n", help: "Print at most <n> entries.", completion: Completion.none),
    ],
    examples: [Example("shelf ls kind:image width>=1024", "Large images.")],
    run: { _ in throw PendingCommandError(name: "ls") })
}
