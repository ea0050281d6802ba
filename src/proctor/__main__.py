from proctor.cli.entry import main

main()
