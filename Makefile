# The two commands of the README: `make demo` (the main job) and `make test`.
# Each installs what it needs first (scripts/setup.sh), so both work on a fresh machine.
VENV := .venv/bin

.PHONY: setup demo test lint

setup:
	@bash scripts/setup.sh

demo: setup
	$(VENV)/metalogic demo --out out/demo

# The style checks run first: a change that breaks them fails the test command (and CI) too.
test: lint
	$(VENV)/pytest -q

lint: setup
	$(VENV)/ruff check . && $(VENV)/ruff format --check engine app tests bench && $(VENV)/mypy engine logic extract agents memory app metalogic tests bench scripts
