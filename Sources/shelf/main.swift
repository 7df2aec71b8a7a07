import ShelfCLI

await ShelfCommandLine.main()
