"""The Council Review GitHub Action's step: run a council, report it, gate the job on it.

`action.yml` (at the repository root) installs the package and runs
`python -m amicus_mcp.cli.action`, passing its inputs as environment variables (never
interpolated into a shell line). The inputs that are run options become a `RunOptions`
(each parsed as its flag is: `option_flags`), and the council runs in this process through the
engine (`run_council`), as `amicus council run` does. Run it locally the same way — point `GITHUB_STEP_SUMMARY`
and `GITHUB_OUTPUT` at files — to see exactly what CI will do:

    INPUT_PACK / INPUT_MODELS + INPUT_CHAIR   the bench (a pack, or a model list and a chair)
    INPUT_TEMPLATE, INPUT_ARTIFACT            the briefing; no artifact → the pull request's
                                              diff (GITHUB_BASE_REF…HEAD) under `pr-diff`
    INPUT_PATHS                               narrow that diff to these paths (git pathspecs,
                                              space- or line-separated): a diff over the
                                              artifact read limit, or too long for the
                                              models' context windows, is refused with a
                                              message that says to set it
    INPUT_VARS                                template variables, one NAME=VALUE per line
    INPUT_MAX_COST, INPUT_TIMEOUT             ceiling (USD) and per-leg timeout (minutes)
    INPUT_FAIL_ON, INPUT_ALLOW_NO_VERDICT,    the gate (`amicus council gate`)
    INPUT_ALLOW_UNJUDGED, INPUT_REQUIRE_EVIDENCE
    INPUT_OUT_DIR                             the run directory (default council-ci-<run id>)
    INPUT_BASELINE, INPUT_GATE_ON             a re-review: the previous run's directory (its artifact),
                                              and gate-on new to gate only what is new since it
    INPUT_MATCHER                             with a baseline: the matcher model for what location and
                                              claim leave unmatched (council run --matcher); without
                                              one (a workflow's first run) not used, said in a notice
    INPUT_SARIF_FILE                          write the findings as SARIF 2.1.0 here (output sarif-file)
    INPUT_POST_REVIEW, INPUT_MIN_SEVERITY,    on a pull request: the review's preview in the summary,
    INPUT_MIN_TIER                            posted (as one COMMENT review) only when post-review is
                                              true; GITHUB_TOKEN (action input github-token) and
                                              GITHUB_API_URL from the environment

It appends the Markdown report to `$GITHUB_STEP_SUMMARY`, writes the outputs `run-dir`,
`verdict`, `tier-counts`, `cost` and `gate` (and `sarif-file`, `review` when asked for) to
`$GITHUB_OUTPUT`, and exits with the gate's code: 0 pass, 4 fail — or 1 when the run itself
failed (no verdict to gate), or when post-review was asked for and GitHub refused it.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, TypedDict

from ..engine import artifact_limit
from ..errors import EXIT_ERROR, AmicusError, BadArgs, InternalError
from ..fsio import atomic_write_bytes

if TYPE_CHECKING:
    from ..documents.run import RunManifest
    from ..engine import RunOptions

PR_TEMPLATE = "pr-diff"
# The inputs that are run options: INPUT_<NAME> → the RunOptions field (engine/options.py).
OPTION_INPUTS = {"PACK": "pack", "MODELS": "models", "CHAIR": "chair", "TEMPLATE": "template", "ARTIFACT": "artifact",
                 "VARS": "vars", "MAX_COST": "max_cost", "TIMEOUT": "timeout_min", "OUT_DIR": "out_dir",
                 "BASELINE": "baseline", "MATCHER": "matcher"}
# Every input the script reads, as INPUT_<NAME> (action.yml passes exactly these).
INPUTS = (*OPTION_INPUTS, "PATHS", "FAIL_ON", "ALLOW_NO_VERDICT", "ALLOW_UNJUDGED", "REQUIRE_EVIDENCE",
          "SARIF_FILE", "POST_REVIEW", "MIN_SEVERITY", "MIN_TIER", "GATE_ON")
NARROW_HINT = "narrow the diff with the action's 'paths' input (e.g. paths: src/ docs/), or review one file with 'artifact'"


def _input(env: Mapping[str, str], name: str) -> str:
    if name not in INPUTS:
        raise InternalError(f"the action reads an undeclared input {name}")
    return env.get(f"INPUT_{name}", "").strip()


def input_name(name: str) -> str:
    """An input as action.yml spells it (MAX_COST → max-cost)."""
    return name.lower().replace("_", "-")


def input_names() -> dict[str, str]:
    """How the action names each run option's flag, for its error messages (--max-cost → max-cost)."""
    from ..engine import flag_of

    return {flag_of(field): input_name(name) for name, field in OPTION_INPUTS.items()}


def check_bench(env: Mapping[str, str]) -> None:
    if not _input(env, "PACK") and not _input(env, "MODELS"):
        raise BadArgs("the action needs a bench: set the 'pack' input, or 'models' and 'chair'",
                      hint="e.g. with: {models: deepseek,gpt,gemini, chair: kimi}")


def default_template(env: Mapping[str, str]) -> str | None:
    """The template when neither the input nor the pack names one: the pull request's diff
    reads best under pr-diff, a file under design-doc."""
    if _input(env, "TEMPLATE") or _pack_has_template(_input(env, "PACK")):
        return None
    return PR_TEMPLATE if not _input(env, "ARTIFACT") else "design-doc"


def run_options(env: Mapping[str, str], *, artifact: str, out_dir: str, template: str | None) -> RunOptions:
    """The RunOptions for the action's inputs, each read as its flag reads it (a comma list, one
    NAME=VALUE per line, a number); a value the options refuse is BAD_ARGS."""
    from ..engine import typed_run_options

    texts: dict[str, str] = {}
    for name, field in OPTION_INPUTS.items():
        text = _input(env, name)
        if text and not (name == "MATCHER" and unused_matcher(env)):
            texts[field] = text
    return typed_run_options(texts, artifact=artifact, out_dir=out_dir,
                             **({"template": template} if template is not None else {}))


def unused_matcher(env: Mapping[str, str]) -> str | None:
    """The notice for a `matcher` input with no `baseline`: a workflow names its matcher once, and
    its first run has no previous run to re-review against, so the council runs without one."""
    if not _input(env, "MATCHER") or _input(env, "BASELINE"):
        return None
    return "the 'matcher' input is not used: there is no 'baseline' (no previous run) to re-review against"


def _pack_has_template(pack: str) -> bool:
    if not pack:
        return False
    from ..engine import pack_sets_template

    return pack_sets_template(pack)


def pr_diff(env: Mapping[str, str], target: Path) -> Path:
    """The pull request's diff (base…HEAD), written to `target`. Needs a checkout with history."""
    base = env.get("GITHUB_BASE_REF", "").strip()
    if not base:
        raise BadArgs("no 'artifact' input and this is not a pull_request event (GITHUB_BASE_REF is unset)",
                      hint="set the 'artifact' input to the file to review, or run the action on pull_request")
    cwd = env.get("GITHUB_WORKSPACE") or None
    paths = _input(env, "PATHS").split()
    proc = subprocess.run(["git", "diff", "--no-color", f"origin/{base}...HEAD", "--", *paths], cwd=cwd,  # noqa: S603,S607
                          capture_output=True, check=False)
    if proc.returncode != 0:
        detail = proc.stderr.decode("utf-8", "replace").strip().splitlines()[-1:] or ["git failed"]
        raise BadArgs(f"could not diff origin/{base}...HEAD: {detail[0]}",
                      hint="check out with history: actions/checkout with fetch-depth: 0")
    where = f" under {' '.join(paths)}" if paths else ""
    if not proc.stdout.strip():
        raise BadArgs(f"the diff origin/{base}...HEAD{where} is empty",
                      hint="nothing to review: the pull request changes no files" + (" there" if paths else ""))
    if len(proc.stdout) > artifact_limit():
        raise BadArgs(f"the pull request's diff origin/{base}...HEAD{where} is {_size(len(proc.stdout))}, over the "
                      f"{_size(artifact_limit())} a council reviews at once", hint=NARROW_HINT)
    return atomic_write_bytes(target, proc.stdout)


def _size(n: int) -> str:
    return f"{n / 1024:,.0f} KiB" if n < 1024 * 1024 else f"{n / (1024 * 1024):,.1f} MiB"


def write_outputs(path: str | None, outputs: Mapping[str, str]) -> None:
    if not path:
        return
    with open(path, "a", encoding="utf-8") as handle:
        for key, value in outputs.items():
            handle.write(f"{key}={value.replace(chr(10), ' ')}\n")


def append_summary(path: str | None, text: str) -> None:
    if not path:
        return
    with open(path, "a", encoding="utf-8") as handle:
        handle.write(text.rstrip() + "\n\n")


def _cost(run: RunManifest) -> str:
    amount = run.usage.cost.amount if run.usage is not None else None
    if run.usage is None or amount is None:
        return "unknown"
    return f"{amount:.4f}" if run.usage.cost_exact else f"{amount:.4f}+"  # a floor: some legs were unpriced


def main(env: Mapping[str, str] | None = None) -> int:
    env = os.environ if env is None else env
    try:
        return _run(env)
    except AmicusError as err:
        print(f"Error: {err.message}", file=sys.stderr)
        if err.hint:
            print(f"  → {err.hint}", file=sys.stderr)
        hint = f"\n\n→ {err.hint}" if err.hint else ""
        append_summary(env.get("GITHUB_STEP_SUMMARY"), f"## Council review\n\n**Error** ({err.code}): {err.message}{hint}")
        return err.exit_code


def _run(env: Mapping[str, str]) -> int:
    from ..council.gate import evaluate_gate
    from ..engine import RunDir
    from .council_ci import gate_dismissed, gate_rereview
    from ..engine import render_verdict

    fail_on = _input(env, "FAIL_ON") or "fix-these-first"
    allow_no_verdict = _input(env, "ALLOW_NO_VERDICT").lower() == "true"
    allow_unjudged = _input(env, "ALLOW_UNJUDGED").lower() == "true"
    require_evidence = _input(env, "REQUIRE_EVIDENCE").lower() == "true"
    out_dir = Path(_input(env, "OUT_DIR") or f"council-ci-{env.get('GITHUB_RUN_ID', 'local')}").resolve()
    artifact = _input(env, "ARTIFACT") or str(pr_diff(env, Path(env.get("RUNNER_TEMP") or out_dir.parent) / "amicus-pr.diff"))
    check_bench(env)
    template = default_template(env)
    print(f"amicus council run: {artifact} → {out_dir}", flush=True)
    unused = unused_matcher(env)
    if unused:
        print(f"Notice: {unused}", flush=True)
    code, error = _council(env, artifact=artifact, out_dir=out_dir, template=template)
    summary, outputs = env.get("GITHUB_STEP_SUMMARY"), env.get("GITHUB_OUTPUT")
    verdict_path = RunDir(out_dir).verdict_path
    if code not in (0, 2) or not verdict_path.exists():
        message = f"{error['code']}: {error['message']}" if error else "ERROR: the council run failed"
        if error and error["code"] == "CONTEXT_LENGTH_EXCEEDED" and not _input(env, "ARTIFACT"):
            message += f" — {NARROW_HINT}"
        print(f"Council run failed (exit {code}): {message}", file=sys.stderr)
        write_outputs(outputs, {"run-dir": str(out_dir), "verdict": "", "tier-counts": "{}", "cost": "unknown", "gate": "error"})
        append_summary(summary, f"## Council review\n\n**The council run failed** (exit {code}): {message}")
        return code or EXIT_ERROR
    run = RunDir(out_dir).read()
    verdict = RunDir(out_dir).read_verdict()
    gate_on = _input(env, "GATE_ON") or "all"
    if gate_on not in ("all", "new"):
        raise BadArgs(f"gate-on '{gate_on}' is not all or new", hint="gate-on: new counts only blockers new since the baseline")
    gate = evaluate_gate(verdict, fail_on, allow_no_verdict=allow_no_verdict, allow_unjudged=allow_unjudged,
                         require_evidence=require_evidence, source=str(verdict_path),
                         rereview=gate_rereview(out_dir, gate_on), dismissed=gate_dismissed(out_dir))
    print(gate["reason"], flush=True)
    degraded = f"\n\n> Degraded run (exit 2): {'; '.join(run.notices) or 'see run.json degrades'}" if code == 2 else ""
    unused_note = f"\n\n> Notice: {unused}" if unused else ""
    append_summary(summary, f"## Council review: {'passed' if gate['passed'] else 'FAILED'}\n\n{gate['reason']}"
                            f"{degraded}{unused_note}")
    append_summary(summary, render_verdict(verdict_path, verdict))
    extra: dict[str, str] = {}
    sarif = _input(env, "SARIF_FILE")
    if sarif:
        extra["sarif-file"] = _write_sarif(out_dir, Path(sarif).resolve(), env)
    review_state, review_failed = _pr_review(env, out_dir, summary)
    if review_state:
        extra["review"] = review_state
    write_outputs(outputs, {
        "run-dir": str(out_dir),
        "verdict": verdict.get("overallVerdict") or "",
        "tier-counts": json.dumps(verdict.get("tierCounts") or {}, separators=(",", ":"), sort_keys=True),
        "cost": _cost(run),
        "gate": "pass" if gate["passed"] else "fail",
        **extra,
    })
    if review_failed and gate["passed"]:
        return EXIT_ERROR
    return int(gate["exitCode"])


def _thresholds(env: Mapping[str, str], *, severity: str, tier: str) -> tuple[str, str]:
    from ..vocabulary import SEVERITIES, TIERS

    min_severity, min_tier = _input(env, "MIN_SEVERITY") or severity, _input(env, "MIN_TIER") or tier
    if min_severity not in SEVERITIES:
        raise BadArgs(f"min-severity '{min_severity}' is not a severity", hint=f"one of: {', '.join(SEVERITIES)}")
    if min_tier not in TIERS:
        raise BadArgs(f"min-tier '{min_tier}' is not a tier", hint=f"one of: {', '.join(TIERS)}")
    return min_severity, min_tier


def _write_sarif(out_dir: Path, target: Path, env: Mapping[str, str]) -> str:
    from ..council.sarif import DEFAULT_MIN_SEVERITY, DEFAULT_MIN_TIER
    from ..fsio import atomic_write_text
    from .council import sarif_text

    min_severity, min_tier = _thresholds(env, severity=DEFAULT_MIN_SEVERITY, tier=DEFAULT_MIN_TIER)
    target.parent.mkdir(parents=True, exist_ok=True)
    atomic_write_text(target, sarif_text(str(out_dir), min_severity=min_severity, min_tier=min_tier))
    print(f"SARIF → {target}", flush=True)
    return str(target)


def pull_request_number(env: Mapping[str, str]) -> int | None:
    """The pull request this workflow runs for: the event payload's, else refs/pull/N/…."""
    event = env.get("GITHUB_EVENT_PATH", "")
    if event and Path(event).is_file():
        from ..fsio import read_json

        try:
            doc = read_json(event, what="the workflow's event payload")
        except AmicusError:
            doc = None
        number = doc.get("pull_request", {}).get("number") if isinstance(doc, dict) else None
        if isinstance(number, int) and number > 0:
            return number
    import re

    ref = re.fullmatch(r"refs/pull/(\d+)/(?:merge|head)", env.get("GITHUB_REF", ""))
    return int(ref.group(1)) if ref else None


def _pr_review(env: Mapping[str, str], out_dir: Path, summary: str | None) -> tuple[str, bool]:
    """On a pull request: (the review output — preview, posted or error — and whether a requested post failed)."""
    from ..council.pr_review import DEFAULT_MIN_SEVERITY, DEFAULT_MIN_TIER
    from ..engine import pr_review

    post = _input(env, "POST_REVIEW").lower() == "true"
    number, repo = pull_request_number(env), env.get("GITHUB_REPOSITORY", "")
    if number is None or not repo:
        if post:
            print("post-review: this is not a pull request run (no pull_request number), so nothing is posted",
                  file=sys.stderr)
        return "", False
    min_severity, min_tier = _thresholds(env, severity=DEFAULT_MIN_SEVERITY, tier=DEFAULT_MIN_TIER)
    try:
        doc = pr_review(str(out_dir), repo=repo, pr=number, env=env, min_severity=min_severity, min_tier=min_tier,
                        event="COMMENT", post=post)
    except AmicusError as err:
        hint = f"\n\n→ {err.hint}" if err.hint else ""
        print(f"Review {'not posted' if post else 'preview unavailable'}: {err.message}", file=sys.stderr)
        append_summary(summary, f"## Pull-request review\n\n**{'Not posted' if post else 'No preview'}** "
                                f"({err.code}): {err.message}{hint}")
        return "error", post
    state = "posted" if doc.posted else "preview"
    title = (f"## Pull-request review: posted ({len(doc.inline)} inline comment(s))" if doc.posted
             else "## Pull-request review: preview (post-review is off; nothing was posted)")
    append_summary(summary, f"{title}\n\n{doc.preview}")
    print(f"pull-request review: {state}", flush=True)
    return state, False


class CouncilFailure(TypedDict):
    code: str
    message: str


def _council(env: Mapping[str, str], *, artifact: str, out_dir: Path,
             template: str | None) -> tuple[int, CouncilFailure | None]:
    """Run the council in this process: (its exit code, the error it ended with, or None).
    Its messages name the action's inputs, not the CLI's flags."""
    import anyio

    from ..engine import run_council
    from ..errors import rename_arguments

    try:
        options = run_options(env, artifact=artifact, out_dir=str(out_dir), template=template)
        run, code = anyio.run(lambda: run_council(options))
    except AmicusError as err:
        rename_arguments(err, input_names())
        return err.exit_code, {"code": err.code, "message": err.message}
    return code, ({"code": run.error.code, "message": run.error.message} if code == 1 and run.error is not None else None)


if __name__ == "__main__":
    sys.exit(main())
