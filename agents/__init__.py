"""metalogic.agents: model backends, reference agents, prompts, reply parsing and the answers store.

How an agent may be asked, stated once (here, where naming them imports nothing): every command,
the run configuration and the prompt builder read these."""

PROMPTINGS = ("direct", "cot", "cogmap", "memory")  # prompting strategies (agents/prompts.py)
VIEWS = ("image", "text")  # frames as images, or objects as labelled boxes in text
VIEW_CHOICES = ("auto", *VIEWS)  # auto: image when the backend takes images
BOXES = ("drawn", "listed", "both")  # how tracked boxes reach the model
