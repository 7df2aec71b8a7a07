import ShelfCLI

exit(await ShelfCommandLine.main())
