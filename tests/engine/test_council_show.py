"""Issue 19 item 13: `amicus council show NAME` checks the members against the model catalog as
a run would — fetching it when no fresh one is cached — or says that it did not check them
(`--offline` with nothing cached, a fetch that failed), instead of calling a member that left
the catalog resolved until some run happened to cache one."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from fakeprovider import FakeProvider, Reply, configure_fake

from amicus_mcp.cli import main as cli_main
from amicus_mcp.schemas import schema_errors

MEMBERS = ["openrouter/vendor/a", "openrouter/vendor/retired", "openrouter/vendor/b"]
RETIRED = {"member": "openrouter/vendor/retired", "reason": "'vendor/retired' is no longer in the OpenRouter model catalog"}


@pytest.fixture
def aging(gateway: FakeProvider, config_dir: Path) -> FakeProvider:
    """A saved council with a member that has left the (fake) OpenRouter catalog; nothing cached."""
    (config_dir / "config.json").write_text(json.dumps({"councils": {"aging": MEMBERS}}), encoding="utf-8")
    assert not (config_dir / "model-catalog.json").exists()
    return gateway


def show(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[dict[str, Any], str]:
    assert cli_main(["council", "show", "aging", *args, "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert schema_errors(doc, "council-presets") == []
    assert cli_main(["council", "show", "aging", *args]) == 0
    human = capsys.readouterr()
    return doc, human.out + human.err


def catalog_fetches(fake: FakeProvider) -> int:
    return sum(1 for r in fake.requests if r.method == "GET" and r.path.endswith("/models"))


def test_a_member_that_left_the_catalog_is_dropped_without_any_run_first(aging: FakeProvider, capsys) -> None:
    doc, human = show(capsys)
    assert doc["resolved"] == ["openrouter/vendor/a", "openrouter/vendor/b"] and doc["dropped"] == [RETIRED]
    assert doc["catalog"]["checked"] is True and doc["catalog"]["state"] == "fresh" and doc["catalog"]["note"] is None
    assert catalog_fetches(aging) == 1  # fetched once, then read from the cache it wrote
    assert "dropped:  openrouter/vendor/retired" in human and "Notice:" not in human


def test_offline_with_nothing_cached_says_it_did_not_check(aging: FakeProvider, capsys) -> None:
    doc, human = show(capsys, "--offline")
    assert catalog_fetches(aging) == 0
    assert doc["resolved"] == MEMBERS and doc["dropped"] == []
    assert doc["catalog"] == {"checked": False, "state": "unavailable", "fetchedAt": None,
                              "note": doc["catalog"]["note"]}
    assert "not checked against the OpenRouter model catalog: --offline, and no catalog is cached" in doc["catalog"]["note"]
    assert "Notice: not checked against the OpenRouter model catalog" in human


def test_offline_reads_the_cache_a_fetch_left(aging: FakeProvider, capsys) -> None:
    show(capsys)
    fetched = catalog_fetches(aging)
    doc, _ = show(capsys, "--offline")
    assert catalog_fetches(aging) == fetched and doc["dropped"] == [RETIRED]
    assert doc["catalog"]["checked"] is True and doc["catalog"]["state"] == "cached" and doc["catalog"]["fetchedAt"]


def test_a_failed_fetch_says_it_did_not_check(aging: FakeProvider, capsys, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AMICUS_OPENROUTER_BASE_URL", "http://127.0.0.1:9/api/v1")  # nothing listens
    doc, human = show(capsys)
    assert doc["resolved"] == MEMBERS and doc["catalog"]["checked"] is False
    assert "the catalog could not be fetched (cannot fetch http://127.0.0.1:9/api/v1/models" in doc["catalog"]["note"]
    out = [line for line in human.splitlines() if not line.startswith("Notice:")]
    assert out[:3] == ["Council 'aging'", f"  members:  {', '.join(MEMBERS)}", f"  resolved: {', '.join(MEMBERS)}"]
    assert "Notice: not checked against the OpenRouter model catalog" in human


def test_a_stale_cache_after_a_failed_refresh_is_named(aging: FakeProvider, capsys, monkeypatch: pytest.MonkeyPatch,
                                                       config_dir: Path) -> None:
    show(capsys)
    cache = config_dir / "model-catalog.json"
    doc = json.loads(cache.read_text(encoding="utf-8"))
    cache.write_text(json.dumps({**doc, "fetchedAt": "2020-01-01T00:00:00Z"}), encoding="utf-8")
    aging.catalog_reply = Reply(status=503, body={"error": "down"})  # the cache's own endpoint fails to refresh
    shown, human = show(capsys)
    assert shown["dropped"] == [RETIRED] and shown["catalog"]["checked"] is True and shown["catalog"]["state"] == "stale"
    assert "checked against the catalog cached at 2020-01-01T00:00:00Z; refreshing it failed" in shown["catalog"]["note"]
    assert "Notice: checked against the catalog cached at 2020-01-01" in human


def test_a_council_that_needs_no_catalog_fetches_none(fake: FakeProvider, config_dir: Path, capsys) -> None:
    configure_fake(config_dir, fake, extra={"councils": {"mine": ["fake/a", "fake/b"]}})
    assert cli_main(["council", "show", "mine", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["resolved"] == ["fake/a", "fake/b"] and doc["catalog"]["checked"] is True
    assert doc["catalog"]["state"] is None and fake.requests == []
