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

from typing import TYPE_CHECKING

from collections.abc import Mapping, Sequence

from typing_extensions import NotRequired, TypedDict

if TYPE_CHECKING:  # the declarations only: this module builds plain dicts, and loads no pydantic
    from ..documents.council import VerdictRanking


_PRECISION = 9  # places are halves averaged over judges: equal means compare equal at this precision
# The order of the aggregate ranking: no peer place last, then the place, fewer Disputed, more Confirmed.
_Key = tuple[bool, float, int, int]
# A record read defensively (a hand-assembled one may lack what a tally writes): each value narrowed.
_View = Mapping[str, object]


class _Seat(TypedDict):
    seat: NotRequired[str]  # a row's seat, when it differs from its model


def aggregate_ranking(record: _View) -> list[VerdictRanking]:
    """One row per answer (per street-cred row, in rank order): `rank`, `model`, `seat` (when
    it differs from the model), `peersOnly`, `withSelf`, `perJudgeRank`, and the counts of its
    claims per tier (`confirmedClaims`, `disputedClaims`, `claims`)."""
    rows = [_row(cred, record) for cred in _list(record.get("streetCred")) if isinstance(cred, Mapping)]
    # sorted() is stable: rows equal on the key stay in bench (street-cred) order
    ordered = sorted(rows, key=lambda pair: pair[0])
    out: list[VerdictRanking] = []
    for place, (key, row) in enumerate(ordered, start=1):
        same = out and ordered[place - 2][0] == key
        row["rank"] = out[-1]["rank"] if same else place
        out.append(row)
    return out


def _row(cred: _View, record: _View) -> tuple[_Key, VerdictRanking]:
    model, seat = cred.get("model"), cred.get("seat")
    claims = [f for f in _list(record.get("findings")) if isinstance(f, Mapping) and _raised_by(f, model, seat)]
    confirmed = sum(1 for f in claims if _tier(f) == "Confirmed")
    disputed = sum(1 for f in claims if _tier(f) == "Disputed")
    peers = _number(cred.get("peersOnly"))
    per_judge = cred.get("perJudgeRank")
    own_seat: _Seat = {"seat": seat} if isinstance(seat, str) and seat and seat != model else {}
    row: VerdictRanking = {
        "rank": 0,  # set once the rows are ordered
        "model": str(model), **own_seat, "peersOnly": peers, "withSelf": _number(cred.get("withSelf")),
        "perJudgeRank": dict(per_judge) if isinstance(per_judge, Mapping) else {},
        "claims": len(claims), "confirmedClaims": confirmed, "disputedClaims": disputed,
    }
    return (peers is None, round(peers, _PRECISION) if peers is not None else 0.0, disputed, -confirmed), row


def _raised_by(finding: _View, model: object, seat: object) -> bool:
    """Whether `finding` is the row's: by seat when the row has one, else by alias."""
    if isinstance(seat, str) and seat:
        raiser_seat = finding.get("raiserSeat")
        return raiser_seat == seat if isinstance(raiser_seat, str) and raiser_seat else bool(finding.get("raiser") == seat)
    return bool(finding.get("raiser") == model)


def _tier(finding: _View) -> object:
    override = finding.get("tierOverride")
    return override.get("to") if isinstance(override, Mapping) and override.get("to") else finding.get("tier")


def _number(value: object) -> float | None:
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else None


def _list(value: object) -> Sequence[object]:
    return value if isinstance(value, list) else []
