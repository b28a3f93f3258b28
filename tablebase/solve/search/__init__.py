"""Exact search from one position, for games too large to enumerate whole.

:func:`prove` proves the outcome and the distance of a position with the
same conventions as the full builder (:mod:`tablebase.solve.retrograde`):
the winner takes the fastest win, the loser the slowest loss, and a draw's
distance is the longest line of drawn positions to the end. It returns the
positions it can give with **every** move proved (the start, with
``children=True``, and those reached from it whose children all have exact
labels), their moves and their children's labels, so a caller can store them
in the same ``states``/``moves`` tables as a build and every stored move list
is complete. It talks to the game only through
:class:`tablebase.games.base.Game`; a game may offer compiled versions of the
outcome and distance searches (:meth:`Game.outcome_table`, a
:class:`~tablebase.games.compiled_search.CompiledSearch`; Ultimate does with
numba), which the search then runs in node budgets between looks at the clock;
a table that labels positions itself (``labels``, Connect Four's exact
scores) is given the deadline and stops there on its own. A
:class:`SearchSession` keeps a reusable table from one proof to the next, and
beside a tablebase file between processes.

How it works (acyclic games, ``method="search"``):

1. **Outcome** (win/draw/loss): negamax alpha-beta over the values -1, 0, 1
   with a transposition table of bounds. The value set is tiny, so most
   windows are null windows and cut-offs are cheap. Move ordering: an
   immediate win (a child that is a terminal loss for the opponent) ends the
   node at once; then the table's best move; then children by what the
   table knows of them; then *fewest replies first* (the child with the
   fewest legal moves: forcing moves are the quickest to prove; this alone
   cut the nodes 3-4x on Ultimate positions); then a history heuristic.
2. **Distance** of a win or a loss: alpha-beta over scores that encode the
   distance (``M - d`` for a win in ``d`` plies, ``-(M - d)`` for a loss,
   0 for a draw), driven MTD-style from the short side: null-window tests
   "a win within k plies?" (for a won position, k = 1, 2, ...) or "does the
   loser last k plies or more?" (for a lost one) until the bounds meet. A
   non-terminal position is at least one ply from the end (and at most
   ``max_plies`` if the game gives that hint), so a test about k plies is a
   search of depth about k: windows that ask for less are cut at once. The
   outcome table from step 1 prunes further (a child known not to be lost is
   never the winning move) and seeds the bounds; a separate table keeps the
   distance bounds between tests. Measured alternatives were slower: one
   full-window search, and proving each child's outcome before its distance
   (the outcome proof of every alternative move runs to the end of the game
   while the bounded test stops at depth k: 3-10x more work on Ultimate
   positions with 33-35 empty spots).
3. **Draw length** of a drawn position: the longest path through drawn
   positions. Where the rules fix it (``game.draw_length``: every drawn
   line fills the board, as in ``ultimate``) there is nothing to search.
   Otherwise, with a ``max_plies(state)`` hint from the game (an upper
   bound on the plies left) it is found from the long side: "is there a
   drawn line of at least L plies?" for L = the bound, bound - 1, ...; each
   test walks depth first through children that could still be long enough
   (longest bound first), proving a child drawn with one null-window
   outcome question, and the bounds learnt are kept between tests. Where
   drawn lines fill the board (``ultimate``, m,n,k games) the first test
   succeeds along a single line; in ``ultimate-classic`` this replaced an
   exact depth-first scan that took 240 s on a 35-spot position. Without the
   hint every drawn child is scanned depth first.

Proving the outcome first is what makes the rest cheap: it is the step with
the most pruning, and the distance and draw-length steps only ask questions
inside what it proved.

Every table entry is written only when its node's search completes, so what
the tables say is proved (a compiled table may forget entries to make room,
never hold a wrong one; what the driver proves is kept apart). When the time limit runs out the search unwinds
and :func:`prove` returns what is exact so far (possibly the outcome of the
start position without its distance); it never guesses.

Cyclic games (positions repeat) would make the depth-first search unsound,
so for them — and on request with ``method="retrograde"`` — :func:`prove`
enumerates the part of the graph reachable from the position and labels it
with the builder's own retrograde pass; every position in it is exact.

The modules, one step each: :mod:`~tablebase.solve.search.outcome` (step 1, and the rival
process that races it), :mod:`~tablebase.solve.search.distance` (step 2, and the helper process
that shares the start's distance tests), :mod:`~tablebase.solve.search.draws` (step 3),
:mod:`~tablebase.solve.search.driver` (:func:`prove`: the steps position by position, the moves
shared with a helper process, the best line, what is stored, and the retrograde method),
:mod:`~tablebase.solve.search.session` (the compiled table kept between proofs), with
what they share in :mod:`~tablebase.solve.search.base`, the answer in
:mod:`~tablebase.solve.search.result` and the distance scores in :mod:`tablebase.scores` (below the
games, which compile them into their own searches).

Example::

    from tablebase.games import get
    from tablebase.solve.search import prove

    game = get("ultimate")
    result = prove(game, game.parse_position(text), time_limit=60)
    result.outcome, result.distance        # ('win', 17)
    result.positions[result.root]          # ('win', 17)
    result.edges[:3]                       # [(state, move, child), ...]
"""

from __future__ import annotations

from tablebase.solve.search.driver import prove, warm_up
from tablebase.solve.search.result import SearchResult
from tablebase.solve.search.session import SearchSession

__all__ = ["SearchResult", "SearchSession", "prove", "warm_up"]
