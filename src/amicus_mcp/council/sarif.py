"""A run's findings as a SARIF 2.1.0 log, for code scanning.

One result per finding at or above the chosen severity and tier. The result's `ruleId` is the
finding's severity (findings carry no class), its `level` follows from it, its location is the
file and lines the finding's `location` names (council/locations.py), its message the claim and
the rationale, and its properties the tier, the agreement (the tally's basis), the evidence check
where one exists and the re-review status where one exists. The run's id, bench and chair are the
run's properties.

`partialFingerprints` is what lets a re-run update an alert rather than duplicate it: a hash of
the file and the claim's words only — never the run id, the finding's id, its lines or its
severity, which all move between runs of the same material. Two findings of one run with the
same file and claim get an ordinal so each fingerprint is unique in the log.

Everything here is a pure function of its arguments.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from typing_extensions import NotRequired, TypedDict

from ..schemas import JsonObject
from ..vocabulary import SARIF_MIN_SEVERITY, SARIF_MIN_TIER, SEVERITIES, TIERS
from .locations import physical_location

if TYPE_CHECKING:  # the declarations only: this module builds plain dicts, and loads no pydantic
    from ..documents.council import Verdict

SARIF_SCHEMA_URI = "https://json.schemastore.org/sarif-2.1.0.json"
TOOL_NAME = "amicus"
TOOL_URI = "https://github.com/amicus-mcp/amicus-mcp"
FINGERPRINT_KEY = "amicusFinding/v1"
# GitHub's code scanning reads the part before the last '/' as the analysis category, so every
# run of the council lands in one category and its alerts are matched across runs.
AUTOMATION_CATEGORY = "amicus-council/"

DEFAULT_MIN_SEVERITY = SARIF_MIN_SEVERITY
DEFAULT_MIN_TIER = SARIF_MIN_TIER

# SARIF's levels, by the finding's severity.
LEVELS = {"blocker": "error", "major": "error", "minor": "warning", "nit": "note"}


# --- the pieces of the log this module writes (SARIF 2.1.0's names; its schema: SARIF_SCHEMA_URI) ---
# A `properties` object is SARIF's property bag, open by the standard: a JsonObject.

class SarifText(TypedDict):
    text: str


class SarifRuleConfiguration(TypedDict):
    level: str


class SarifRule(TypedDict):
    id: str
    name: str
    shortDescription: SarifText
    defaultConfiguration: SarifRuleConfiguration
    properties: JsonObject


class SarifArtifactLocation(TypedDict):
    uri: str
    uriBaseId: str


class SarifRegion(TypedDict):
    startLine: int
    endLine: int


class SarifPhysicalLocation(TypedDict):
    artifactLocation: SarifArtifactLocation
    region: NotRequired[SarifRegion]


class SarifLocation(TypedDict):
    physicalLocation: SarifPhysicalLocation


class SarifResult(TypedDict):
    ruleId: str
    ruleIndex: int
    level: str
    message: SarifText
    partialFingerprints: dict[str, str]
    locations: NotRequired[list[SarifLocation]]
    properties: NotRequired[JsonObject]


class SarifDriver(TypedDict):
    name: str
    version: str
    informationUri: str
    rules: list[SarifRule]


class SarifTool(TypedDict):
    driver: SarifDriver


class SarifAutomationDetails(TypedDict):
    id: str


class SarifRun(TypedDict):
    tool: SarifTool
    automationDetails: SarifAutomationDetails
    columnKind: str
    properties: JsonObject
    results: list[SarifResult]


# The functional form, as `$schema` is no identifier.
SarifLog = TypedDict("SarifLog", {"$schema": str, "version": str, "runs": list[SarifRun]})

# Result properties carried from a finding when it has them (absent ones are left out, not null).
_CARRIED = ("tier", "confidence", "raiser", "decision", "evidenceCheck", "reReview", "dismissed")


def meets(finding: Mapping[str, Any], min_severity: str, min_tier: str) -> bool:
    """True when the finding is at or above both thresholds (an unknown severity or tier never is)."""
    severity, tier = finding.get("severity"), finding.get("tier")
    if severity not in SEVERITIES or tier not in TIERS:
        return False
    return SEVERITIES.index(severity) <= SEVERITIES.index(min_severity) and TIERS.index(tier) <= TIERS.index(min_tier)


def select_findings(findings: Sequence[Mapping[str, Any]], min_severity: str, min_tier: str) -> list[Mapping[str, Any]]:
    return [f for f in findings if meets(f, min_severity, min_tier)]


def fingerprint(finding: Mapping[str, Any]) -> str:
    """The stable part of a finding: the file it names and its claim's words, case and spacing ignored."""
    path = physical_location(str(finding.get("location") or "")).path or ""
    words = " ".join(re.findall(r"\w+", str(finding.get("claim") or "").lower()))
    return hashlib.sha256(f"{path}\0{words}".encode()).hexdigest()[:32]


def message_text(finding: Mapping[str, Any]) -> str:
    claim = str(finding.get("claim") or f"finding {finding.get('id')}").strip()
    rationale = str(finding.get("rationale") or "").strip()
    return f"{claim}\n\n{rationale}" if rationale else claim


def build_sarif(verdict: Verdict, findings: Sequence[Mapping[str, Any]], *, tool_version: str,
                min_severity: str = DEFAULT_MIN_SEVERITY, min_tier: str = DEFAULT_MIN_TIER,
                rereview: Mapping[str, Any] | None = None) -> SarifLog:
    """The SARIF log for a run's `findings` (engine/run_findings.py joins them) under its `verdict`."""
    chosen = select_findings(findings, min_severity, min_tier)
    used = [s for s in SEVERITIES if any(f.get("severity") == s for f in chosen)]
    rules: list[SarifRule] = [{
        "id": f"amicus/{severity}",
        "name": f"Council{severity.capitalize()}Finding",
        "shortDescription": {"text": f"A {severity} finding of an amicus council review"},
        "defaultConfiguration": {"level": LEVELS[severity]},
        "properties": {"tags": ["council-review", severity]},
    } for severity in used]
    seen: dict[str, int] = {}
    results = []
    for finding in chosen:
        base = fingerprint(finding)
        seen[base] = seen.get(base, 0) + 1
        results.append(_result(finding, base if seen[base] == 1 else f"{base}:{seen[base]}", used))
    run_properties: JsonObject = {"runId": verdict.get("runId"), "bench": list(verdict.get("council") or []),
                                      "chair": verdict.get("chair"), "overallVerdict": verdict.get("overallVerdict"),
                                      "minSeverity": min_severity, "minTier": min_tier}
    if rereview is not None:  # a re-review: what the baseline had that this run no longer finds
        run_properties["reReview"] = {"baselineRunId": rereview.get("baselineRunId"), "counts": rereview.get("counts"),
                                      "resolved": list(rereview.get("resolved") or [])}
    return {
        "$schema": SARIF_SCHEMA_URI,
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {"name": TOOL_NAME, "version": tool_version, "informationUri": TOOL_URI, "rules": rules}},
            "automationDetails": {"id": f"{AUTOMATION_CATEGORY}{verdict.get('runId')}"},
            "columnKind": "unicodeCodePoints",
            "properties": run_properties,
            "results": results,
        }],
    }


def _result(finding: Mapping[str, Any], print_: str, used: Sequence[str]) -> SarifResult:
    severity = str(finding["severity"])
    result: SarifResult = {
        "ruleId": f"amicus/{severity}",
        "ruleIndex": list(used).index(severity),
        "level": LEVELS[severity],
        "message": {"text": message_text(finding)},
        "partialFingerprints": {FINGERPRINT_KEY: print_},
    }
    where = physical_location(str(finding.get("location") or ""))
    if where.path is not None:
        physical: SarifPhysicalLocation = {"artifactLocation": {"uri": where.path, "uriBaseId": "%SRCROOT%"}}
        if where.start is not None:
            physical["region"] = {"startLine": max(1, where.start), "endLine": max(1, where.end or where.start)}
        result["locations"] = [{"physicalLocation": physical}]
    properties: JsonObject = {"findingId": finding.get("id"), "location": finding.get("location")}
    basis = finding.get("basis")
    if isinstance(basis, Mapping):
        properties["agreement"] = {"agree": basis.get("a"), "dispute": basis.get("d"), "neutral": basis.get("n")}
    properties.update({key: finding[key] for key in _CARRIED if finding.get(key) is not None})
    result["properties"] = properties
    return result
