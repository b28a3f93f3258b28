"""The JSON contract: each result type's ``to_dict`` is what the HTTP API replies and the CLI prints."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("fastapi", reason="the serve extra is not installed: pip install -e '.[serve,dev]'")

from fastapi.testclient import TestClient  # noqa: E402
from pydantic import BaseModel  # noqa: E402
from typer.testing import CliRunner  # noqa: E402

import tablebase  # noqa: E402
from tablebase import games  # noqa: E402
from cli.main import app as cli_app  # noqa: E402
from tablebase.serve import create_app  # noqa: E402
from tablebase.serve.replies import (  # noqa: E402
    LineReply,
    MoveReply,
    PredecessorReply,
    PredecessorsReply,
    ProbeReply,
    VariantReply,
)

#: A position of tic-tac-toe in the middle of a game: x to move, with moves and predecessors.
MIDDLE = "x.o/.x./..o"


def same_shape(data: dict[str, Any], model: type[BaseModel]) -> None:
    """``data`` has exactly the model's fields, in its order, and survives validation unchanged."""
    assert list(data) == list(model.model_fields), model.__name__
    assert model.model_validate(data).model_dump() == data


@pytest.mark.parametrize(
    ("query", "model", "items", "item_model"),
    [("probe", ProbeReply, "moves", MoveReply), ("predecessors", PredecessorsReply, "predecessors", PredecessorReply)],
)
def test_probe_and_predecessors_to_dict_are_their_replies(
    ttt: tablebase.VariantTable, query: str, model: type[BaseModel], items: str, item_model: type[BaseModel]
) -> None:
    data = getattr(ttt, query)(MIDDLE).to_dict()
    same_shape(data, model)
    assert data[items]
    for item in data[items]:
        same_shape(item, item_model)


def test_line_to_dict_is_the_line_reply(ttt: tablebase.VariantTable) -> None:
    same_shape(ttt.line(MIDDLE).to_dict(), LineReply)


def test_variant_info_to_dict_is_the_variant_reply(tb: tablebase.Tablebase) -> None:
    for info in tb.variants():
        same_shape(info.to_dict(tb.variant(info.name).game), VariantReply)


def test_unbuilt_variant_info_to_dict_is_the_variant_reply() -> None:
    game = games.get("ultimate")
    same_shape(tablebase.VariantInfo.unbuilt(game).to_dict(game), VariantReply)


def test_http_replies_are_the_to_dicts(built_db: Path, tb: tablebase.Tablebase) -> None:
    ttt = tb.variant("tictactoe")
    built = {i.name: i.to_dict(tb.variant(i.name).game) for i in tb.variants()}
    searched = {name: games.get(name) for name in ("connect4", "morris-9", "ultimate", "ultimate-classic") if name not in built}
    listed = {**built, **{name: tablebase.VariantInfo.unbuilt(g).to_dict(g) for name, g in searched.items()}}
    expected = {
        "/api/variants": [listed[name] for name in sorted(listed)],
        f"/api/tictactoe?position={MIDDLE}": ttt.probe(MIDDLE).to_dict(),
        f"/api/tictactoe/line?position={MIDDLE}": ttt.line(MIDDLE).to_dict(),
        f"/api/tictactoe/predecessors?position={MIDDLE}": ttt.predecessors(MIDDLE).to_dict(),
    }
    with TestClient(create_app(built_db)) as client:
        for url, data in expected.items():
            reply = client.get(url)
            assert reply.status_code == 200, reply.text
            assert reply.json() == data, url


@pytest.mark.parametrize(
    ("command", "result"),
    [
        ("probe", lambda t: t.probe(MIDDLE).to_dict()),
        ("best", lambda t: t.probe(MIDDLE).best_dict()),
        ("line", lambda t: t.line(MIDDLE).to_dict()),
        ("predecessors", lambda t: t.predecessors(MIDDLE).to_dict()),
    ],
)
def test_cli_prints_the_to_dicts(built_db: Path, ttt: tablebase.VariantTable, command: str, result: Any) -> None:
    run = CliRunner().invoke(cli_app, [command, "tictactoe", MIDDLE, "--json", "--db", str(built_db)])
    assert run.exit_code == 0, run.output
    assert run.output == json.dumps(result(ttt), indent=2) + "\n"


def test_best_dict_is_the_probe_with_its_first_move(ttt: tablebase.VariantTable) -> None:
    probe = ttt.probe(MIDDLE)
    best = probe.best_dict()
    assert best.pop("best") == probe.to_dict()["moves"][0]
    assert best == {k: v for k, v in probe.to_dict().items() if k != "moves"}
