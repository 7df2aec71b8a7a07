/// `shelf devices`: List ALSA playback and capture devices.
enum DevicesCommand {
  static let command = Command(
    name: "devices",
    abstract: "List ALSA playback and capture devices.",
    discussion: """
      Names and descriptions come from ALSA's device hints.
      """,
    arguments: [],
    options: [
      OptionSpec("json", help: "Print the list as JSON."),
    ],
    examples: [Example("shelf devices", "List devices.")],
    run: { _ in throw PendingCommandError(name: "devices") })
}
