extension HelpRenderer {
  /// What `shelf` alone prints (on stderr, as a usage error, as git and cargo do): the usage
  /// line and the commands, one line each, short enough to read without scrolling; the full
  /// overview stays behind `--help`.
  func usageSummary() -> String {
    let names = commands.map(\.name) + [HelpTopic.name]
    let column = (names.map(\.count).max() ?? 0) + 4
    var lines = ["usage: \(ShelfInfo.usage)", "", "commands:"]
    for (name, abstract) in zip(names, commands.map(\.abstract) + [HelpTopic.abstract]) {
      let wrapped = TextLayout.wrap(abstract, width: width, indent: column)
      lines.append("  " + name + wrapped.dropFirst(name.count + 2))
    }
    lines += ["", "See 'shelf --help' for the overview and 'shelf help <command>' for a command."]
    return lines.joined(separator: "\n")
  }
}
