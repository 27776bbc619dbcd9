"""Measuring the council: planted-flaw suites, `amicus eval`, and the scores they give.

A suite is a set of cases, each an artifact with flaws planted in it on purpose (and a few
clean ones with none). An eval runs one council per case through the engine, matches every
finding to a planted flaw or to none, and scores the bench: recall per seat and for the
council, recall by tier, Confirmed-tier precision, false alarms on clean cases, chair verdict
accuracy, cost and time — beside the street-cred each model earned in the same runs.

    suite.py        the suite format: models, validation (file and field named), loading
    prefilter.py    the deterministic location pre-filter (pure)
    matching.py     the matcher's prompt, reply schema and the reading of its reply (pure)
    scoring.py      decisions + the runs' documents → the `eval` document (pure)
    report_md.py    eval.json → eval.md (pure)
    report_html.py  eval.json → eval.html with its inline SVG plots (pure; plots.py draws them)
    compare.py      two eval documents side by side (pure)
    documents.py    the pydantic models of every eval document (and their JSON Schemas)
    evaldir.py      the eval directory's layout, reading recorded files, re-scoring (I/O)
    runner.py       pre-flight, the councils (through the engine's door), the matcher calls
    worker.py       `python -m amicus_mcp.eval.worker DIR`: a detached eval (MCP amicus_eval)

This layer sits above the engine: it imports engine and council, never the reverse. The
fronts (cli/eval.py, mcp/tools_eval.py) only parse arguments and print.
"""

# What the bench options mean in an eval, where they differ from one council run's; both fronts
# (cli/eval.py's flags, mcp/tools_eval.py's arguments) describe them with these words.
BENCH_HELP = {
    "lenses": "one distinct expert lens per seat, in every case's council",
    "debate": "one rebuttal round in every case's council",
    "max_cost": "the whole suite's ceiling on known spend, USD: the cases' councils share it evenly, and the "
                "matcher is paid from what they leave",
}
