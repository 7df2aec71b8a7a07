/// `shelf completions SHELL`: prints a completion script generated from the command table.
enum CompletionsCommand {
  static let command = Command(
    name: "completions",
    abstract: "Print a shell completion script for bash, zsh or fish.",
    discussion: """
      The script is generated from the same command table as the help and the man pages, so \
      it always knows every command and option of this version of shelf. Query terms complete \
      from the fields the query language takes (kind: then kind:image), --sort from the fields \
      entries sort by, and -D from the devices 'shelf devices' lists at that moment.
      """,
    arguments: [
      ArgumentSpec(
        "shell", help: "The shell: bash, zsh or fish.",
        completion: .choices(CompletionScriptWriter.shells))
    ],
    examples: [
      Example(
        "shelf completions bash > ~/.local/share/bash-completion/completions/shelf",
        "Install bash completion for your user."),
      Example("shelf completions zsh > ~/.zfunc/_shelf", "Install zsh completion (with ~/.zfunc in $fpath)."),
      Example("shelf completions fish > ~/.config/fish/completions/shelf.fish", "Install fish completion."),
    ],
    run: run)

  static func run(_ invocation: Invocation) async throws -> ExitStatus {
    let shell = invocation.arguments.positionals[0].string
    guard let script = CompletionScriptWriter(commands: CommandTable.commands).script(for: shell) else {
      throw invocation.usageError(
        "unknown shell '\(shell)': expected "
          + ArgumentParser.list(CompletionScriptWriter.shells.map { "'\($0)'" }, conjunction: "or"))
    }
    invocation.console.write(script)
    return .success
  }
}
