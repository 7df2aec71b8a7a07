/// The `help` command, which is not in the command table because it runs nothing: the parser
/// answers it with a help page. Its own page (`shelf help help`) is described here, once, for
/// the help renderer, the man page and the completion scripts.
enum HelpTopic {
  static let name = "help"
  static let abstract = "Show help for a command."
  static let usage = "shelf help [<command>]"
  static let discussion =
    "With no command, lists every command, the global options and the exit statuses; with a "
    + "command, shows its page: the same text as 'shelf <command> --help'."
  static let argumentHelp = "The command to describe."
  static let examples: [Example] = [
    Example("shelf help", "List the commands."),
    Example("shelf help ls", "Show the options, arguments and examples of ls."),
  ]
}
