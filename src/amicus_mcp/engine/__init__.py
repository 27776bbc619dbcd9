"""The engine's front door: what cli/, mcp/, eval/ and workspace/ may use of the engine.

Nothing outside the engine imports one of its modules (tests/test_layers.py holds every other
layer to this door); what a front needs is named here, in `__all__`, grouped by what it does:

    options     the run and wave options and their declared fields (flags, arguments, packs)
    runs        prepare, run, start (detached), resume a council run; start or run a wave
    reading     find a run or a job, its status, its verdict and findings; wait; abort
    stores      the project's session store, the run directory (`RunDir`, whose read_tally() /
                read_verdict() / read_rereview() / read_dismissed() / review_rationales() read
                a run's council outputs) and its file names
    packs       packs and templates (the CLI's `council pack` / `council template`)
    the eval    what an eval's councils and matcher share with a council run

No door name is also the name of a module behind it (`run_wave`, not `fanout`; `read_status`,
not `status`): importing that module would replace the name on the package.

Start-up: importing the engine must cost a front no more than what it uses. Only store and
run_dir (the standard library and the base layer: no pydantic) are imported here; every other
name is a door function that imports its module on its first call (`_lazy`), so building the
CLI's parser loads no options model, and the MCP server's cold start and `amicus --help` pay
for no stage, provider or document model they do not call. A type checker sees the real
definitions (TYPE_CHECKING); the classes only it sees (the options models, Arg, Declared, Flag,
Prepared, Observation) are for annotations, and `option_models()` gives the options models at run time.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from .run_dir import RUN_FILES, RunDir, find_run, read_pointer
from .store import ID_SHAPE, SessionStore, new_id, now_iso, parse_iso, resolve_project

if TYPE_CHECKING:
    from .briefing_inputs import list_templates, save_options_pack, show_template
    from .budget import Budget
    from .control import (Observation, abort, council_leg_status, document, is_terminal, list_all, locate, run_or_wave,
                          wait)
    from .control import status as read_status
    from .council_run import run_council, run_prepared
    from .decisions import forget, list_decisions, remember
    from .fanout import estimate as estimate_wave
    from .fanout import fanout as run_wave
    from .jobs import write_pointer as write_job_pointer
    from .matcher import MatcherLeg, run_matcher
    from .material import check_material
    from .options import (Arg, Declared, Flag, RunOptions, WaveOptions, briefing_fields, check_tag, declared,
                          flag_of, names_a_file, typed_run_options)
    from .packs import list_packs, pack_sets_template, show_pack
    from .pr_loop import pr_review
    from .preflight import Prepared, dropped_notice, max_legs, prepare, prepare_model, preview_council, with_defaults
    from .resume import resume_council, resume_hint
    from .run_report import decided_report_html, redecide_run, render_verdict, report_target
    from .run_findings import read_run_findings
    from .run_state import observed
    from .signals import run_until_signal, signal_received
    from .spawn import cli_argv, spawn_detached, start_council_run, start_resumed_run, start_wave

__all__ = [
    # options
    "option_models", "run_options", "typed_run_options", "Arg", "Declared", "Flag", "RunOptions",
    "briefing_fields", "check_tag", "declared", "flag_of",
    "names_a_file", "with_defaults",
    # runs
    "Prepared", "prepare", "run_council", "run_prepared", "start_council_run", "resume_council", "start_resumed_run",
    "resume_hint", "estimate_wave", "run_wave", "start_wave", "preview_council",
    "dropped_notice", "pr_review", "artifact_limit",
    # reading, waiting, aborting
    "Observation", "read_status", "document", "is_terminal", "list_all", "locate", "run_or_wave", "council_leg_status",
    "observed", "wait", "abort", "render_verdict", "redecide_run", "decided_report_html", "report_target",
    "read_run_findings", "remember", "forget", "list_decisions",
    # stores and the run directory
    "SessionStore", "ID_SHAPE", "new_id", "now_iso", "parse_iso", "resolve_project", "RunDir", "find_run",
    "read_pointer", "RUN_FILES",
    # packs and templates
    "list_packs", "show_pack", "save_options_pack", "pack_sets_template", "list_templates", "show_template",
    # what the eval shares with a council run
    "Budget", "MatcherLeg", "run_matcher", "check_material", "max_legs", "prepare_model",
    "run_until_signal", "signal_received", "spawn_detached", "cli_argv", "write_job_pointer",
]


def _lazy(module: str, name: str) -> Any:
    """A door function for `name` of engine module `module`, imported on the first call. The
    name is looked up on every call, so what the module holds (a test's stand-in too) is what runs."""
    def door(*args: Any, **kwargs: Any) -> Any:
        return getattr(importlib.import_module(module, __name__), name)(*args, **kwargs)

    door.__name__ = door.__qualname__ = name
    door.__doc__ = f"{module[1:]}.{name} (imported on first call: start-up stays at the floor)"
    return door


if not TYPE_CHECKING:
    list_templates, save_options_pack, show_template = (
        _lazy(".briefing_inputs", n) for n in ("list_templates", "save_options_pack", "show_template"))
    Budget = _lazy(".budget", "Budget")
    (abort, council_leg_status, document, is_terminal, list_all, locate, run_or_wave, wait) = (
        _lazy(".control", n) for n in ("abort", "council_leg_status", "document", "is_terminal", "list_all", "locate",
                                       "run_or_wave", "wait"))
    read_status = _lazy(".control", "status")
    run_council, run_prepared = (_lazy(".council_run", n) for n in ("run_council", "run_prepared"))
    forget, list_decisions, remember = (_lazy(".decisions", n) for n in ("forget", "list_decisions", "remember"))
    estimate_wave, run_wave = _lazy(".fanout", "estimate"), _lazy(".fanout", "fanout")
    write_job_pointer = _lazy(".jobs", "write_pointer")
    MatcherLeg, run_matcher = _lazy(".matcher", "MatcherLeg"), _lazy(".matcher", "run_matcher")
    check_material = _lazy(".material", "check_material")
    briefing_fields, check_tag, declared, flag_of, names_a_file, typed_run_options = (
        _lazy(".options", n) for n in ("briefing_fields", "check_tag", "declared", "flag_of", "names_a_file",
                                       "typed_run_options"))
    list_packs, pack_sets_template, show_pack = (
        _lazy(".packs", n) for n in ("list_packs", "pack_sets_template", "show_pack"))
    pr_review = _lazy(".pr_loop", "pr_review")
    dropped_notice, max_legs, prepare, prepare_model, preview_council, with_defaults = (
        _lazy(".preflight", n) for n in ("dropped_notice", "max_legs", "prepare", "prepare_model", "preview_council",
                                         "with_defaults"))
    resume_council, resume_hint = _lazy(".resume", "resume_council"), _lazy(".resume", "resume_hint")
    read_run_findings = _lazy(".run_findings", "read_run_findings")
    decided_report_html, redecide_run, render_verdict, report_target = (
        _lazy(".run_report", n) for n in ("decided_report_html", "redecide_run", "render_verdict", "report_target"))
    observed = _lazy(".run_state", "observed")
    run_until_signal, signal_received = (_lazy(".signals", n) for n in ("run_until_signal", "signal_received"))
    cli_argv, spawn_detached, start_council_run, start_resumed_run, start_wave = (
        _lazy(".spawn", n) for n in ("cli_argv", "spawn_detached", "start_council_run", "start_resumed_run",
                                     "start_wave"))


def artifact_limit() -> int:
    """The largest artifact a council reviews at once, in bytes (briefing_inputs reads it)."""
    from .briefing_inputs import MAX_ARTIFACT_BYTES

    return MAX_ARTIFACT_BYTES


def option_models() -> dict[str, type[RunOptions] | type[WaveOptions]]:
    """The options models by name ("run", "wave"): options.MODELS, imported on the call (pydantic
    is not loaded before a command needs it)."""
    from .options import MODELS

    return MODELS


def run_options(doc: object) -> RunOptions:
    """A run's options from their document (options.json's shape), validated."""
    from .options import RunOptions

    return RunOptions.model_validate(doc)
