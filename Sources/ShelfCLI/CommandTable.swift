/// Every `shelf` command, in the order help lists them. Help, man pages and completions are
/// generated from this table.
enum CommandTable {
  static let commands: [Command] = [
    IndexCommand.command,
    LsCommand.command,
    InfoCommand.command,
    ShowCommand.command,
    StatsCommand.command,
    RootsCommand.command,
    ForgetCommand.command,
    CatalogCommand.command,
    CrushCommand.command,
    ExtractCommand.command,
    DupesCommand.command,
    GainCommand.command,
    PlayCommand.command,
    RecordCommand.command,
    DevicesCommand.command,
    CompletionsCommand.command,
  ]
}
