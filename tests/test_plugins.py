"""Games as plugins: the ``tablebase.games`` entry point group, broken and clashing plugins, ``variants``."""

from __future__ import annotations

import importlib
import importlib.metadata
import json
import types
from collections.abc import Iterator
from typing import Any

import pytest
from typer.testing import CliRunner

import tablebase
from cli.main import app
from tablebase import games
from tablebase.errors import TablebaseError
from tablebase.games.mnk import MNKGame


class FakeEntryPoint:
    """What ``importlib.metadata.entry_points`` yields, enough for the registry."""

    def __init__(self, name: str, package: str, target: Any) -> None:
        self.name = name
        self.dist = types.SimpleNamespace(name=package)
        self.value = f"{package.replace('-', '_')}.{name}"
        self.target = target

    def load(self) -> Any:
        if isinstance(self.target, Exception):
            raise self.target
        return self.target


@pytest.fixture
def extra_entry_points(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[FakeEntryPoint]]:
    """Entry points added to the installed ones; the registry reloaded around the test."""
    real = importlib.metadata.entry_points
    extra: list[FakeEntryPoint] = []

    def entry_points(**kwargs: Any) -> list[Any]:
        return [*real(**kwargs), *extra]

    monkeypatch.setattr(importlib.metadata, "entry_points", entry_points)
    monkeypatch.delitem(games.__dict__, "FAMILIES", raising=False)
    games.get.cache_clear()
    yield extra
    games.__dict__.pop("FAMILIES", None)
    games.get.cache_clear()


def test_builtin_families_come_through_the_entry_point_group() -> None:
    eps = {ep.name: ep.value for ep in importlib.metadata.entry_points(group="tablebase.games")}
    for family in ("mnk", "roman", "rota", "wild", "ultimate"):
        assert eps[family] == f"tablebase.games.{family}"
    assert {"tictactoe", "roman", "rota", "wild", "ultimate"} <= set(games.names())


def test_a_plugin_adds_variants(extra_entry_points: list[FakeEntryPoint]) -> None:
    toy = types.SimpleNamespace(VARIANTS={"toy-mnk": lambda: MNKGame(2, 2, 2, name="toy-mnk")})
    extra_entry_points.append(FakeEntryPoint("toy", "aaa-games", toy))  # its module sorts before "tablebase.games"
    assert games.get("toy-mnk").name == "toy-mnk"
    found = tablebase.registered_variants()
    packages = [v.package for v in found]
    assert found[0].package == "tablebase"
    assert packages.index("aaa-games") > max(i for i, p in enumerate(packages) if p == "tablebase")
    listed = {v.variant: v for v in found}
    assert listed["toy-mnk"].package == "aaa-games"
    assert listed["toy-mnk"].family == "toy"
    assert listed["tictactoe"].package == "tablebase"


def test_a_broken_plugin_is_reported_in_one_line(
    extra_entry_points: list[FakeEntryPoint], capsys: pytest.CaptureFixture[str]
) -> None:
    extra_entry_points.append(FakeEntryPoint("bad", "broken-games", ImportError("no module named 'nowhere'")))
    assert "tictactoe" in games.names()
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1
    assert "'broken-games'" in err[0] and "nowhere" in err[0]
    assert len(games.problems()) == 1 and "'broken-games'" in games.problems()[0]


def test_the_order_is_the_same_whatever_order_entry_points_come_in(monkeypatch: pytest.MonkeyPatch) -> None:
    real = list(importlib.metadata.entry_points(group="tablebase.games"))
    monkeypatch.setattr(importlib.metadata, "entry_points", lambda **kwargs: real[::-1])
    monkeypatch.delitem(games.__dict__, "FAMILIES", raising=False)
    try:
        backwards = games.names()
    finally:
        games.__dict__.pop("FAMILIES", None)
    assert backwards == games.names()
    assert games.problems() == []


def test_a_taken_name_is_refused_and_reported(
    extra_entry_points: list[FakeEntryPoint], capsys: pytest.CaptureFixture[str]
) -> None:
    thief = types.SimpleNamespace(VARIANTS={"tictactoe": lambda: MNKGame(2, 2, 2)})
    extra_entry_points.append(FakeEntryPoint("thief", "thief-games", thief))
    assert games.get("tictactoe").parameters()["m"] == 3
    assert games._find(games.families(), "tictactoe").parameters()["m"] == 3  # type: ignore[union-attr]
    err = capsys.readouterr().err
    assert "'thief-games'" in err and "'tictactoe'" in err and "already registered" in err


def test_no_family_registered_names_the_fix(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(importlib.metadata, "entry_points", lambda **kwargs: [])
    monkeypatch.setattr(games, "_own_entries", lambda: None)
    monkeypatch.delitem(games.__dict__, "FAMILIES", raising=False)
    games.get.cache_clear()
    try:
        with pytest.raises(TablebaseError, match="pip install"):
            games.get("tictactoe")
    finally:
        games.__dict__.pop("FAMILIES", None)
        games.get.cache_clear()


def test_variants_command_lists_text_and_json() -> None:
    runner = CliRunner()
    text = runner.invoke(app, ["variants"])
    assert text.exit_code == 0, text.output
    assert "tictactoe" in text.output and "solve only" in text.output and "mnk-M-N-K" in text.output
    out = runner.invoke(app, ["variants", "--json"])
    rows = json.loads(out.output)
    by_name = {r["variant"]: r for r in rows}
    assert set(rows[0]) == {"variant", "family", "package", "rules", "buildable"}
    assert by_name["ultimate"]["buildable"] is False  # 3^81 positions: searched, not enumerated
    assert by_name["tictactoe"]["buildable"] is True
    assert by_name["mnk-4-4-4"]["family"] == "mnk"


def test_variants_command_has_help_text() -> None:
    out = CliRunner().invoke(app, ["--help"])
    assert "variants" in out.output and "registered game variant" in out.output


def test_a_builtin_name_resolves_without_reading_the_entry_points() -> None:
    """A probe of a built-in variant reads our own entry points file, not every installed package's."""
    import subprocess
    import sys

    script = (
        "import sys\nfrom tablebase import games\n"
        "assert games.get('tictactoe').name == 'tictactoe' and games.get('mnk-4-4-4').name == 'mnk-4-4-4'\n"
        "print('importlib.metadata' in sys.modules)\n"
    )
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60)
    assert result.stdout.strip() == "False", result.stderr


def test_the_builtin_shortcut_answers_as_the_registry() -> None:
    own = games._own_entries()
    assert own is not None
    assert own == sorted(ep.value for ep in importlib.metadata.entry_points(group="tablebase.games") if ep.dist.name == "tablebase")
    for name in [*games.names(), "mnk-4-4-4", "mnk-5-4-4-misere", "no-such-game"]:
        quick = games._builtin(name)
        registry = games._find(games.families(), name)
        if quick is None:
            assert registry is None or games.package_of(importlib.import_module(type(registry).__module__))[1] != "tablebase"
        else:
            assert registry is not None and (type(quick), quick.name, quick.parameters()) == (
                type(registry), registry.name, registry.parameters()
            )
