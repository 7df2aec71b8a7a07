/// `shelf record`: Record audio from an ALSA device into a file.
enum RecordCommand {
  static let command = Command(
    name: "record",
    abstract: "Record audio from an ALSA device into a file.",
    discussion: """
      The file stays valid whatever stops the recording.
      """,
    arguments: [ArgumentSpec("output", help: "The file to write.")],
    options: [
      OptionSpec("device", short: "D", value: "name", help: "The ALSA device.", defaultValue: "default", completion: Completion.none),
      OptionSpec("force", help: "Overwrite an existing file."),
    ],
    examples: [Example("shelf record memo.wav", "Record until Ctrl-C.")],
    run: { _ in throw PendingCommandError(name: "record") })
}
