/// `shelf play`: Play audio files, folders or a catalogue query through ALSA.
enum PlayCommand {
  static let command = Command(
    name: "play",
    abstract: "Play audio files, folders or a catalogue query through ALSA.",
    discussion: """
      Keys on a terminal: space pause, arrows seek and volume, n/p next and previous, q quit.
      """,
    arguments: [ArgumentSpec("item", help: "Audio files, folders or query terms.", repeating: true)],
    options: [
      OptionSpec("device", short: "D", value: "name", help: "The ALSA device.", defaultValue: "default", completion: Completion.none),
      OptionSpec("no-interactive", help: "Do not read keys or draw a status line."),
    ],
    examples: [Example("shelf play song.flac", "Play one file.")],
    run: { _ in throw PendingCommandError(name: "play") })
}
