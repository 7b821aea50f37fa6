from arena.cli.commands import main

main()
