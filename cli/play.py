"""``tablebase play``: a game against perfect play in the terminal.

The user moves for one side and perfect play for the other; ``?`` lists the
value of each of the user's moves, ``undo`` takes back to the user's previous
turn, ``quit`` (or the end of input) stops. In a variant the file does not
hold whole, a position it lacks is proved by a search and stored, as
``tablebase solve`` does.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import typer

import tablebase
from cli.render import show_distance, table, value_text
from tablebase.errors import TablebaseError
from tablebase.query import probe_else_prove

if TYPE_CHECKING:
    from tablebase.query import Solver, Tablebase
    from tablebase.variant import VariantTable


def sides(players: tuple[str, str]) -> dict[str, str]:
    """What ``--as`` accepts (each player's name, ``first``, ``second``) and the player each names."""
    return {players[0]: players[0], players[1]: players[1], "first": players[0], "second": players[1]}


def game_over_text(probe: tablebase.Probe, players: tuple[str, str], human: str) -> str:
    """How a finished game reads: a draw, or who won (the user or perfect play)."""
    if probe.outcome == "draw":
        return "game over: draw"
    mover = players.index(probe.to_move)
    winner = players[mover if probe.outcome == "win" else 1 - mover]
    return f"game over: {winner} wins" + (" (you)" if winner == human else " (perfect play)")


def hint_text(probe: tablebase.Probe) -> str:
    """The value of each move of a position, as ``?`` shows them."""
    rows = [[m.move, m.outcome, show_distance(m.distance)] for m in probe.moves]
    return table(["move", "outcome", "distance"], rows)


class Match:
    """One game in the terminal: the positions reached, each probed, and the side the user plays."""

    def __init__(self, tb: Tablebase, solver: Solver, variant: str, human: str):
        self.tb = tb
        self.solver = solver
        self.variant = variant
        self.human = human
        self.game = solver.game
        #: The probes of the positions reached, the current one last.
        self.history: list[tablebase.Probe] = []
        self.prepared = False

    def known(self, position: str | None, moves: bool = False) -> tablebase.Probe:
        """The probe of ``position``, with every move's value where perfect play moves next (or
        ``moves``): from the file, else (a variant not built whole) proved by search and stored,
        as ``tablebase solve`` does, going on from the last search (:func:`probe_else_prove`)."""
        tb, solver, variant = self.tb, self.solver, self.variant

        def prove(state: int) -> tablebase.Probe:
            table = tb.get_variant(variant)
            if table is None or not table.complete:
                typer.echo("searching...")
                solver.solve_state(state)
            return tb.variant(variant).probe(position)

        game = self.game
        state = game.initial_state() if position is None else game.parse_position(position)
        return probe_else_prove(tb, game, state, prove, enough=lambda probe: not moves and probe.to_move == self.human)

    def run(self, position: str | None) -> None:
        """Play from ``position`` (the start by default) until the game ends or the user stops."""
        self.history = [self.known(position)]
        vt = self.tb.variant(self.variant)
        typer.echo(f"{self.variant}: you play {self.human}; '?' shows the value of each move, 'undo' takes back, 'quit' stops.")
        while True:
            probe = self.history[-1]
            typer.echo("")
            typer.echo(vt.game.format_board(vt.parse(probe.position)))
            if probe.terminal:
                typer.echo(game_over_text(probe, self.game.players, self.human))
                return
            typer.echo(f"{probe.position}: {probe.to_move} to move, {value_text(probe.outcome, probe.distance)}")
            if probe.to_move != self.human:
                self.reply(probe)
                continue
            self.prepare(vt)
            answer = self.ask()
            if answer is None or answer in ("quit", "q", "exit"):
                return
            if answer in ("?", "hint"):
                self.history[-1] = probe = self.known(probe.position, moves=True)
                typer.echo(hint_text(probe))
            elif answer == "undo":
                self.undo()
            else:
                self.move(vt, probe, answer)

    def reply(self, probe: tablebase.Probe) -> None:
        """Perfect play's move."""
        move = probe.best_move
        assert move is not None
        typer.echo(f"perfect play: {move.move} ({value_text(move.outcome, move.distance)})")
        self.history.append(self.known(move.position))

    def prepare(self, vt: VariantTable) -> None:
        """The search made ready before the user's first move is asked for, so that no reply waits for
        it (a variant the file does not hold whole)."""
        if not self.prepared:
            self.prepared = True
            if not vt.info.complete:
                self.solver.prepare()

    def ask(self) -> str | None:
        """The user's next answer that is not empty, ``None`` at the end of input (Ctrl-D)."""
        answer = ""
        while not answer:
            try:
                answer = typer.prompt("your move", default="", show_default=False).strip()
            except typer.Abort:
                typer.echo("")
                return None
        return answer

    def undo(self) -> None:
        """Back to the user's previous turn, if there was one."""
        if not any(p.to_move == self.human for p in self.history[:-1]):
            typer.echo("nothing to undo")
            return
        while len(self.history) > 1:
            self.history.pop()
            if self.history[-1].to_move == self.human:
                break

    def move(self, vt: VariantTable, probe: tablebase.Probe, answer: str) -> None:
        """The user's move played (in lower case if it is not a move as typed), or why it is not one."""
        try:
            after = vt.play(probe.position, answer)
        except TablebaseError as exc:
            try:
                after = vt.play(probe.position, answer.lower())
            except TablebaseError:
                typer.echo(str(exc))
                return
        self.history.append(self.known(after))
