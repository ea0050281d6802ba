from proctor.cli.main import main

main()
