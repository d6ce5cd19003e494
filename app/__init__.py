"""metalogic.app: the application layer above engine, extract, agents and memory.

It holds the orchestration: the `metalogic` command line (cli), the `run` and `demo` pipeline
(pipeline, runconfig, demo.toml), the HTML report (report, report_html, report_assets) and
`compare`. Nothing below it imports it.
"""
