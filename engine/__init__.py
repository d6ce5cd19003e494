"""metalogic.engine: facts I/O, schema, the clingo and Prolog backends, check and its output, audit,
generation and the click options every layer shares. It imports no other layer but logic."""
