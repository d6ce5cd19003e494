"""metalogic.engine: facts I/O, the clingo and Prolog backends, check, scores, reports and the CLI."""
