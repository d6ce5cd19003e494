from metalogic.app.cli import main

main()
