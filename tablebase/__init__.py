"""tablebase: exact endgame tablebases for the tic-tac-toe family of games, in SQLite.

>>> import tablebase
>>> with tablebase.open("tablebase.db") as tb:          # doctest: +SKIP
...     tb.variant("tictactoe").probe("x.o/.x./...").best_move

The package, floor by floor from the bottom (docs/development.md draws the floors):

* :mod:`tablebase.errors`, :mod:`tablebase.outcome` (outcome names, codes and the labelling rule),
  :mod:`tablebase.scores` (the distance scores the exact searches compare), :mod:`tablebase.version`
  and :mod:`tablebase.progress` (the progress callback of long steps);
* :mod:`tablebase.games` — the rules: the :class:`~tablebase.games.base.Game` protocol
  (``games/base.py``), board layouts (``games/layout.py``), grid notation (``games/notation.py``),
  the bitboard base (``games/bitboard.py``), what a compiled search gives the search
  (``games/compiled_search.py``), what a game cut into tiers gives a build (``games/tiering.py``),
  random play (``games/playouts.py``); one package per game family (``games/mnk/``,
  ``games/connect4/``, ``games/ultimate/``, ``games/morris/``; the small ``roman``, ``rota`` and
  ``wild`` one module each) over the shared machinery of ``games/common/``;
* :mod:`tablebase.solve` — enumeration and retrograde labelling: in memory, layer by layer out of
  core, in dense tasks or tier by tier (on local processes or a Dask cluster, the ``cluster``
  extra); the exact search from one position in ``solve/search/``;
* :mod:`tablebase.store` — schema, migrations, writers, block readers and the storages
  (:mod:`tablebase.store.storage`);
* the query layer:

  * :mod:`tablebase.query` — the front object (:class:`Tablebase`: open, build, export, solve, verify);
  * :mod:`tablebase.variant` — one built variant (:class:`VariantTable`: probe, line, predecessors, stats);
  * :mod:`tablebase.reader` — the read-only connection, snapshots, and ``TablebaseFile``, the file
    interface of the modules below the front object;
  * :mod:`tablebase.probes` — the one builder of probes from the values of a position's children;
  * :mod:`tablebase.results` — what queries return, each with its JSON (``to_dict``);
  * :mod:`tablebase.keys` — the key a position is stored under, and the symmetry to it;
  * :mod:`tablebase.build` — which solver and storage a build uses;
  * :mod:`tablebase.opening` — opening tables: computed by the search, shipped with a game, installed;
  * :mod:`tablebase.verify` — the independent audits of a built variant, one module an audit;
  * :mod:`tablebase.sql` — SQL functions (``tb_outcome``, ``tb_probe``, ...) for sqlite3, SQLAlchemy
    and datasette (:mod:`tablebase.datasette_plugin`, the ``datasette`` extra), reading any storage;
  * :mod:`tablebase.svg` — positions and probes drawn from a game's layout (notebooks show them);
  * :mod:`tablebase.testing` — the checks every game passes, for authors of game plugins;

* :mod:`tablebase.serve` — the HTTP API and web board (the ``serve`` extra), on top beside the
  command line (``cli/``).

The import rule: ``import tablebase``, opening a file and probing a
position load neither numpy nor SQLAlchemy, alembic, typer or pydantic
(a probe from the command line must answer faster than those import).
Modules that need them (array kernels, solvers, writers, ``verify``, the
typer app, the server) are imported inside the functions that use them,
and array kernels live in modules of their own (``games/<family>/kernels.py``,
``games/common/kernels.py``). No module imports one that imports it back, directly
or round a loop, typing-only imports included: what two modules share lives
in the lower one (a small ``Protocol`` where the lower one needs the higher
one's type). The rules (:mod:`tablebase.games`) are below the solver, the
store and everything built on them: a module of ``games/`` imports only
``games/`` and the modules below it (``errors``, ``outcome``, ``scores``, ``version``,
``progress``), inside functions too; a check written over the rules that needs a
solver is handed one. ``tests/test_imports.py`` checks these rules.
"""

from __future__ import annotations

from tablebase.errors import (
    BuildError,
    DatabaseError,
    IllegalMoveError,
    MalformedPositionError,
    SchemaVersionError,
    TablebaseError,
    UnknownVariantError,
    UnreachablePositionError,
    VariantNotBuiltError,
)
from tablebase.games import RegisteredVariant, catalog, names, naming
from tablebase.games import variants as registered_variants
from tablebase.query import DEFAULT_DB, Tablebase, VariantTable, check_strategy, count, open
from tablebase.results import (
    Line,
    MoveValue,
    OpeningReport,
    PlyCount,
    Predecessor,
    Predecessors,
    Probe,
    SolveReport,
    Stats,
    StoredKey,
    VariantInfo,
    VerifyReport,
)



def __getattr__(name: str) -> str:
    """``__version__``: the installed distribution's version, read from its metadata on first use."""
    if name == "__version__":
        from tablebase.version import installed_version

        return installed_version()
    raise AttributeError(f"module 'tablebase' has no attribute {name!r}")


__all__ = [
    "RegisteredVariant",
    "naming",
    "check_strategy",
    "registered_variants",
    "DEFAULT_DB",
    "BuildError",
    "DatabaseError",
    "IllegalMoveError",
    "Line",
    "MalformedPositionError",
    "MoveValue",
    "OpeningReport",
    "PlyCount",
    "Predecessor",
    "Predecessors",
    "Probe",
    "SchemaVersionError",
    "SolveReport",
    "Stats",
    "StoredKey",
    "Tablebase",
    "TablebaseError",
    "UnknownVariantError",
    "UnreachablePositionError",
    "VariantInfo",
    "VariantNotBuiltError",
    "VariantTable",
    "VerifyReport",
    "catalog",
    "count",
    "names",
    "open",
]
