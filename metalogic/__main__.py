from metalogic.engine.cli import main

main()
