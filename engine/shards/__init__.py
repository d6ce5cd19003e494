"""A large facts set checked in shards: plan (which queries go together) and run (the workers)."""
