"""metalogic.engine: the bottom layer. A small kernel (facts and their schema, terms, the rule
vocabulary, errors) and subpackages named for what they do: session (the engines), rules, check,
generate, audit and shards. It imports no other layer but logic, and prints nothing: the commands
live in app/."""
