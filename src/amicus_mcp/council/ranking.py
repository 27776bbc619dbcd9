"""The aggregate ranking of a question council's answers, from its tally record.

Every judge ranks every answer (a tie group shares the mean of the places it spans); the
tally's street-cred already holds, for each answer's author, its mean place under the other
judges (`peersOnly`) and its place under each judge (`perJudgeRank`). The aggregate ranking
orders the answers by, in turn:

1. the peers-only mean place, lower first — an answer's own author's ranking never counts,
   as a raiser's vote on its own claim never does; an answer no peer ranked comes last;
2. fewer of its key claims in the Disputed tier (the peers found it resting on something wrong);
3. more of its key claims in the Confirmed tier (the peers corroborated what it rests on).

Answers equal on all three share a rank (competition ranking: 1, 1, 3), listed in bench order:
a tie the peers did not break is reported as a tie, never broken by seat position or by the
author's vote for itself. The with-self mean is shown beside the rank, never used for it.

Pure: a function of the tally record alone, so a hand-assembled record (the skill's manual
path) ranks exactly as an engine run's does.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

_PRECISION = 9  # places are halves averaged over judges: equal means compare equal at this precision


def aggregate_ranking(record: Mapping[str, Any]) -> list[dict[str, Any]]:
    """One row per answer (per street-cred row, in rank order): `rank`, `model`, `seat` (when
    it differs from the model), `peersOnly`, `withSelf`, `perJudgeRank`, and the counts of its
    claims per tier (`confirmedClaims`, `disputedClaims`, `claims`)."""
    rows = [_row(index, cred, record) for index, cred in enumerate(_list(record.get("streetCred")))
            if isinstance(cred, Mapping)]
    rows.sort(key=lambda r: (r["_key"], r["_position"]))
    out: list[dict[str, Any]] = []
    for place, row in enumerate(rows, start=1):
        same = out and rows[place - 2]["_key"] == row["_key"]
        rank = out[-1]["rank"] if same else place
        out.append({"rank": rank, **{k: v for k, v in row.items() if not k.startswith("_")}})
    return out


def _row(position: int, cred: Mapping[str, Any], record: Mapping[str, Any]) -> dict[str, Any]:
    model, seat = cred.get("model"), cred.get("seat")
    claims = [f for f in _list(record.get("findings")) if isinstance(f, Mapping) and _raised_by(f, model, seat)]
    confirmed = sum(1 for f in claims if _tier(f) == "Confirmed")
    disputed = sum(1 for f in claims if _tier(f) == "Disputed")
    peers = _number(cred.get("peersOnly"))
    row: dict[str, Any] = {"model": model}
    if isinstance(seat, str) and seat and seat != model:
        row["seat"] = seat
    row.update(peersOnly=peers, withSelf=_number(cred.get("withSelf")),
               perJudgeRank=dict(cred["perJudgeRank"]) if isinstance(cred.get("perJudgeRank"), Mapping) else {},
               claims=len(claims), confirmedClaims=confirmed, disputedClaims=disputed)
    row["_key"] = (peers is None, round(peers, _PRECISION) if peers is not None else 0.0, disputed, -confirmed)
    row["_position"] = position
    return row


def _raised_by(finding: Mapping[str, Any], model: Any, seat: Any) -> bool:
    """Whether `finding` is the row's: by seat when the row has one, else by alias."""
    if isinstance(seat, str) and seat:
        raiser_seat = finding.get("raiserSeat")
        return raiser_seat == seat if isinstance(raiser_seat, str) and raiser_seat else bool(finding.get("raiser") == seat)
    return bool(finding.get("raiser") == model)


def _tier(finding: Mapping[str, Any]) -> Any:
    override = finding.get("tierOverride")
    return override.get("to") if isinstance(override, Mapping) and override.get("to") else finding.get("tier")


def _number(value: Any) -> float | None:
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else None


def _list(value: Any) -> Sequence[Any]:
    return value if isinstance(value, list) else []
