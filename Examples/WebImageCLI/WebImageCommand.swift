import ArgumentParser

/// `webimage`: the command-line face of SwiftWebImage. With no arguments it runs the demo.
@main
struct WebImageCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "webimage",
        abstract: "Fetch, decode, cache and thumbnail images with SwiftWebImage.",
        subcommands: [
            DemoCommand.self, FetchCommand.self, PrefetchCommand.self, CacheCommand.self,
            MakeSamplesCommand.self,
        ],
        defaultSubcommand: DemoCommand.self
    )
}
