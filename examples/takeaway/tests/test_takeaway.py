from __future__ import annotations

import tablebase
from tablebase import testing


def test_registered_through_the_entry_point() -> None:
    listed = {v.variant: v for v in tablebase.registered_variants()}
    assert listed["takeaway-21"].package == "tablebase-takeaway"


def test_multiples_of_four_are_lost(tmp_path) -> None:  # type: ignore[no-untyped-def]
    # the classic result for take 1..3: the side to move loses exactly when tokens % 4 == 0
    with tablebase.open(tmp_path / "t.db") as tb:
        tb.build("takeaway-21")
        table = tb.variant("takeaway-21")
        probed = 0
        for tokens in range(22):
            for side in "xo":
                try:
                    result = table.probe(f"{tokens} {side}")
                except tablebase.UnreachablePositionError:
                    continue
                probed += 1
                assert result.outcome == ("loss" if tokens % 4 == 0 else "win")
        assert probed >= 22


def test_rules_pass_the_shared_checks() -> None:
    testing.check_game("takeaway-21", playouts=40)


def test_built_variant_passes_the_shared_checks(tmp_path) -> None:  # type: ignore[no-untyped-def]
    testing.check_built("takeaway-21", tmp_path / "checked.db", playouts=20)


def test_probe_draws_the_heap(tmp_path) -> None:  # type: ignore[no-untyped-def]
    with tablebase.open(tmp_path / "t.db") as tb:
        tb.build("takeaway-21")
        probe = tb.variant("takeaway-21").probe("5 x")
    svg = probe._repr_svg_()
    assert svg is not None and svg.count(">*<") == 5
    # from 5 tokens only taking one wins (it leaves 4): the move names the top token
    assert [m.move for m in probe.moves if m.outcome == "win"] == ["5"]
