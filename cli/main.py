"""The ``tablebase`` command line: a thin layer over :mod:`tablebase`.

Each command opens the database, calls one library method and prints the
result as a table or, with ``--json``, as JSON. Library errors become one
line on stderr and exit code 1.
"""

from __future__ import annotations

import functools
import json
import sys
import time
from operator import methodcaller
from pathlib import Path
from typing import Annotated, Any, Callable, NoReturn, Optional, TypeVar, cast

import typer
from typer.core import TyperGroup

import tablebase
import cli
from cli.progress import BuildProgress, compile_note
from cli.play import Match, sides
from cli.render import best_text, key_text, line_text, moves_text, predecessors_text, probe_text, show_distance, solve_line_text, solved_text, start_text, stats_text, table, unproved_text, verify_text
from tablebase.errors import TablebaseError, shorten_quotes
from tablebase.progress import on_compile

#: The command-line framework's base exception for usage errors (typer may vendor click).
ClickException: type[Exception] = next(c for c in typer.BadParameter.__mro__ if c.__name__ == "ClickException")


class OneLineErrors(TyperGroup):
    """Usage errors as one line on stderr with exit code 1, like library errors."""

    def main(self, *args: Any, **kwargs: Any) -> Any:
        standalone_mode = kwargs.pop("standalone_mode", True)
        kwargs["standalone_mode"] = False
        if not standalone_mode:
            return super().main(*args, **kwargs)
        try:
            result = super().main(*args, **kwargs)
        except ClickException as exc:
            if type(exc).__name__ == "NoArgsIsHelpError":
                typer.echo(exc.ctx.get_help())  # type: ignore[attr-defined]
                sys.exit(0)
            message = shorten_quotes(" ".join(cast(Any, exc).format_message().split()))
            if not message:  # help was shown for a bare command
                sys.exit(0)
            hint = " (a position that starts with '-' goes after '--')" if "No such option: -" in message else ""
            typer.echo(f"error: {message[:1].lower()}{message[1:]}{hint}", err=True)
            sys.exit(1)
        except typer.Abort:
            typer.echo("error: aborted", err=True)
            sys.exit(1)
        sys.exit(result if isinstance(result, int) else 0)

    def get_params(self, ctx: Any) -> Any:
        params = super().get_params(ctx)
        plain_text_params(params)
        return params

    def resolve_command(self, ctx: Any, args: list[str]) -> Any:
        name, command, rest = super().resolve_command(ctx, args)
        if command is not None:
            plain_text_params(command.get_params(ctx))
        return name, command, rest


def plain_text_params(params: list[Any]) -> None:
    """Let the text and flag parameters of a command through as the parser read them: typer would
    otherwise build a pydantic model for each before the command runs (importing pydantic and
    building the models cost about 0.1 s a command, more than a probe's answer); the others,
    and a typer without this hook, keep typer's checks."""
    try:
        from typer._coercion import PassThroughRuntimeParam
    except ImportError:
        return
    for param in params:
        descriptor = getattr(param, "type_descriptor", None)
        annotation = getattr(descriptor, "annotation", None)
        if annotation in (str, bool) and getattr(param, "_runtime_param", 0) is None:
            param._runtime_param = PassThroughRuntimeParam(annotation=annotation, parameter_info=cast(Any, descriptor).parameter_info)


app = typer.Typer(
    name="tablebase",
    cls=OneLineErrors,
    help="Exact endgame tablebases for the tic-tac-toe family of games, stored in SQLite.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
)


def show_version(value: bool) -> None:
    if value:
        typer.echo(f"tablebase {tablebase.__version__}")
        raise typer.Exit()


@app.callback()
def main_options(
    version: Annotated[
        bool, typer.Option("--version", callback=show_version, is_eager=True, help="Print the version and exit.")
    ] = False,
) -> None:
    """Exact endgame tablebases for the tic-tac-toe family of games, stored in SQLite."""


db_app = typer.Typer(help="Database maintenance.", no_args_is_help=True)
app.add_typer(db_app, name="db")

F = TypeVar("F", bound=Callable[..., Any])
R = TypeVar("R")

DbOption = Annotated[
    str,
    typer.Option("--db", envvar="TABLEBASE_DB", help="Tablebase file (env TABLEBASE_DB).", show_default=True),
]
JsonOption = Annotated[bool, typer.Option("--json", help="Print JSON instead of a table.")]
VariantArg = Annotated[str, typer.Argument(help="Variant name, e.g. tictactoe or mnk-4-4-4.")]
PositionArg = Annotated[
    Optional[str],
    typer.Argument(help="Position in the variant's notation, e.g. 'x.o/.x./...' (default: the start)."),
]


def fail(message: str) -> NoReturn:
    """Print one line on stderr and exit with code 1 (quoted input cut to its start)."""
    typer.echo(f"error: {shorten_quotes(message)}", err=True)
    raise typer.Exit(1)


def handle_errors(func: F) -> F:
    """Turn library errors into one line on stderr and exit code 1."""

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return func(*args, **kwargs)
        except TablebaseError as exc:
            fail(str(exc))
        except KeyboardInterrupt:
            fail("interrupted; the database is unchanged")

    return wrapper  # type: ignore[return-value]


def command(group: typer.Typer = app, **kwargs: Any) -> Callable[[F], F]:
    """Register a CLI command with the shared error handling."""

    def decorate(func: F) -> F:
        group.command(**kwargs)(handle_errors(func))
        return func

    return decorate


def emit_json(data: Any) -> None:
    typer.echo(json.dumps(data, indent=2))


# -- building ------------------------------------------------------------------


#: The help of ``build --stones``.
STONES_HELP = (
    "Build tier by tier the tiers of at most K stones a side (Morris: the movement-phase tiers),"
    " the tiers solved together a task, stored when finished; the same command goes on with a stopped build."
)


@command(help="Solve variants and store them (replacing earlier builds atomically).")
def build(
    variants: Annotated[Optional[list[str]], typer.Argument(help="Variant names to build.")] = None,
    all_: Annotated[bool, typer.Option("--all", help="Build every catalogued variant.")] = False,
    symmetry: Annotated[
        bool, typer.Option("--symmetry/--no-symmetry", help="Store one position per symmetry class.")
    ] = True,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No progress bar.")] = False,
    moves: Annotated[
        Optional[bool],
        typer.Option(
            "--moves/--no-moves",
            help="Store the moves table, or states only (moves derived from the rules): --storage moves|states.",
        ),
    ] = None,
    storage: Annotated[
        Optional[str],
        typer.Option(
            "--storage",
            help="Storage: moves (states and moves tables), states (states only), packed (compressed blocks),"
            " dense (values only, over the game's dense index: Connect Four); default: dense or packed for"
            " large variants, else moves.",
        ),
    ] = None,
    build_dir: Annotated[
        Optional[str],
        typer.Option(
            "--build-dir",
            help="Folder or fsspec URL (s3://bucket/dir) for the layer files of an out-of-core build (resumable);"
            " with several variants, a folder per variant inside it (DIR/VARIANT).",
        ),
    ] = None,
    workers: Annotated[
        Optional[int], typer.Option("--workers", min=1, help="Processes for an out-of-core build [default: one per core].")
    ] = None,
    scheduler: Annotated[
        Optional[str],
        typer.Option(
            "--scheduler",
            envvar="TABLEBASE_SCHEDULER",
            help="Dask scheduler address (tcp://host:8786), or local:N for N local dask workers: out-of-core build there.",
        ),
    ] = None,
    worker_memory: Annotated[
        Optional[str],
        typer.Option("--worker-memory", help="Memory limit of each worker of --scheduler local:N (e.g. 1GB)."),
    ] = None,
    stones: Annotated[Optional[int], typer.Option("--stones", min=1, help=STONES_HELP)] = None,
    db: DbOption = tablebase.DEFAULT_DB,
) -> None:
    if moves is not None:
        if storage is not None and storage != ("moves" if moves else "states"):
            fail(f"--{'' if moves else 'no-'}moves contradicts --storage {storage[:80]}")
        storage = "moves" if moves else "states"
    names = list(variants or [])
    if all_:
        names += [n for n in tablebase.catalog() if n not in names]
    if not names:
        fail("name at least one variant, or use --all")
    with tablebase.open(db) as tb:
        for name in names:
            progress = None if quiet else BuildProgress(name)
            started = time.perf_counter()
            try:
                info = tb.build(
                    name,
                    symmetry=symmetry,
                    progress=progress,
                    storage=storage,
                    build_dir=variant_build_dir(build_dir, name) if len(names) > 1 else build_dir,
                    workers=workers,
                    scheduler=scheduler,
                    worker_memory=worker_memory,
                    tiers=stones,
                )
            finally:
                if progress is not None:
                    progress.close()
            wall = time.perf_counter() - started
            split = "" if progress is None else f": {progress.summary(wall)}"
            typer.echo(
                f"{info.name}: {info.states:,} states, {moves_text(info)}, {start_text(info)} ({wall:.2f} s{split})"
            )


def variant_build_dir(build_dir: Optional[str], name: str) -> Optional[str]:
    """The build directory of variant ``name`` inside ``build_dir`` (a folder or URL) shared by several builds."""
    return None if build_dir is None else f"{build_dir.rstrip('/')}/{name}"


# -- queries -------------------------------------------------------------------


@command(help="Prove one position of a variant too large to build (e.g. ultimate) and store what was proved.")
def solve(
    variant: VariantArg,
    position: PositionArg = None,
    time_limit: Annotated[
        Optional[float], typer.Option("--time-limit", help="Give up after this many seconds from the start of the command.")
    ] = None,
    json_: JsonOption = False,
    file: Annotated[
        Optional[Path], typer.Option("--file", help="Solve every position of this file, one a line (time limit per position).")
    ] = None,
    line: Annotated[
        bool, typer.Option("--line", help="Go on down the best line, storing each position on it with every move.")
    ] = False,
    db: DbOption = tablebase.DEFAULT_DB,
) -> None:
    if file is not None:
        solve_file(variant, position, file, time_limit, json_, db, line)
        return
    with tablebase.open(db) as tb:
        report = tb.solve(variant, position, time_limit=since_launch(time_limit), line=line)
    if json_:
        emit_json(report.to_dict())
    elif report.proved:
        typer.echo(solved_text(report))
    if not report.proved:
        fail(unproved_text(report, time_limit))


def since_launch(seconds: float | None) -> float | None:
    """What is left of a positive time limit counted from the command's launch (start-up and
    imports count against it), at least a millisecond; other values as given."""
    if seconds is None or not seconds > 0 or cli.LAUNCHED is None:
        return seconds
    return max(seconds - (time.perf_counter() - cli.LAUNCHED), 0.001)


def solve_file(
    variant: str, position: str | None, file: Path, time_limit: float | None, json_: bool, db: str, line: bool = False
) -> None:
    """``solve --file``: one report per line as each position is proved, progress on stderr."""
    if position is not None:
        fail(f"give a position or --file, not both (got {position[:80]!r})")
    try:
        lines = [line.strip() for line in file.read_text().splitlines()]
    except (OSError, UnicodeDecodeError) as err:
        fail(f"cannot read {str(file)!r}: {err.__class__.__name__.lower()}")
    positions = [line for line in lines if line]
    missed = 0
    with tablebase.open(db) as tb:
        for i, report in enumerate(tb.solve_many(variant, positions, time_limit=time_limit, line=line), 1):
            typer.echo(json.dumps(report.to_dict()) if json_ else solve_line_text(report, time_limit))
            missed += not report.proved
            typer.echo(f"[{i}/{len(positions)}]", err=True)
    if missed:
        fail(f"{missed} of {len(positions)} positions not proved within {time_limit} s each")


@command(help="Write a packed variant (or some of its plies) into another file as rows for SQL browsers.")
def export(
    variant: VariantArg,
    to: Annotated[Path, typer.Option("--to", help="The tablebase file to write the rows into.")],
    storage: Annotated[
        str, typer.Option("--storage", help="states (the states table) or moves (states and moves tables).")
    ] = "states",
    plies: Annotated[Optional[str], typer.Option("--plies", help="Only these plies, e.g. 0-6 or 5.")] = None,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No progress bar.")] = False,
    db: DbOption = tablebase.DEFAULT_DB,
) -> None:
    span = None
    if plies is not None:
        low, _, high = plies.partition("-")
        if not (low.isdigit() and (high or low).isdigit()) or int(low) > int(high or low):
            fail(f"invalid plies {plies[:80]!r}: give A-B or A, e.g. 0-6")
        span = (int(low), int(high or low))
    progress = None if quiet else BuildProgress(variant)
    with tablebase.open(db) as tb:
        try:
            info = tb.export(variant, to, storage=storage, plies=span, progress=progress)
        finally:
            if progress is not None:
                progress.close()
    typer.echo(f"{info.name}: {info.states:,} states written to {to} as {info.storage} rows")


@command(
    help="Solve and store a variant's opening table: the positions reached from the start when one side"
    " plays perfectly, each with every move (stop with Ctrl-C, run again to go on)."
)
def opening(
    variant: VariantArg,
    plies: Annotated[
        Optional[int],
        typer.Option("--plies", help="The table reaches positions with at most this many plies played."),
    ] = None,
    export: Annotated[
        Optional[Path],
        typer.Option("--export", help="Then write every position stored with its moves to FILE (gzip'd text), as a game ships it."),
    ] = None,
    install: Annotated[
        bool,
        typer.Option(
            "--install",
            help="First copy the opening table the package ships for the variant into the file (the one step that"
            " writes it there; probes read it from the package, read-only).",
        ),
    ] = False,
    every: Annotated[
        bool, typer.Option("--every", help="Every position up to --plies, not only those reached against perfect play.")
    ] = False,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No progress lines.")] = False,
    json_: JsonOption = False,
    db: DbOption = tablebase.DEFAULT_DB,
) -> None:
    if plies is None and export is None and not install:
        fail("give --plies N to solve the table, --export FILE or --install")
    with tablebase.open(db) as tb:
        if install:
            new = tb.install_opening(variant)
            if not json_:
                typer.echo(f"{variant}: {new:,} new positions installed from the shipped opening table")
        if plies is not None:
            progress = None if quiet else BuildProgress(variant)
            try:
                report = tb.opening(variant, plies, every=every, progress=progress)
            except KeyboardInterrupt:
                fail("interrupted; the positions solved so far are stored: run the same command again to go on")
            finally:
                if progress is not None:
                    progress.close()
            if json_:
                emit_json(report.to_dict())
            else:
                typer.echo(
                    f"{variant}: {report.positions:,} positions to {report.plies} plies ({report.solved:,} solved now,"
                    f" {report.stored:,} stored already), {report.nodes:,} nodes, {report.seconds:.1f} s"
                )
        if export is not None:
            count = tb.export_opening(variant, export)
            if not json_:
                typer.echo(f"{variant}: {count:,} positions with their moves written to {export}")


@command(name="list", help="List the variants built into the database.")
def list_(
    json_: JsonOption = False,
    markdown: Annotated[bool, typer.Option("--markdown", help="Print a Markdown results table.")] = False,
    db: DbOption = tablebase.DEFAULT_DB,
) -> None:
    with tablebase.open(db) as tb:
        infos = tb.variants()
        if json_:
            emit_json([i.to_dict() for i in infos])
            return
        if markdown:
            typer.echo(tb.results_markdown())
            return
        rows = [
            [
                i.name,
                i.states,
                i.moves if i.moves_stored else "-",
                "yes" if i.symmetry else "no",
                i.storage,
                i.outcome or "unsolved",
                show_distance(i.distance),
                i.rules,
            ]
            for i in infos
        ]
        typer.echo(table(["variant", "states", "moves", "symmetry", "storage", "start", "distance", "rules"], rows))


@command(help="List every registered game variant, built or not, with its family, package and rules.")
def variants(json_: JsonOption = False) -> None:
    found = tablebase.registered_variants()
    if json_:
        emit_json([v.to_dict() for v in found])
        return
    rows = [[v.variant, v.family, v.package, "build" if v.buildable else "solve only", v.rules] for v in found]
    typer.echo(table(["variant", "family", "package", "can", "rules"], rows))
    for line in tablebase.naming():
        typer.echo(f"other sizes: {line}")


def position_command(
    name: str,
    summary: str,
    query: Callable[[tablebase.VariantTable, Optional[str]], R],
    text: Callable[[tablebase.VariantTable, R], str],
    as_json: Callable[[R], Any] = methodcaller("to_dict"),
) -> None:
    """Register ``tablebase NAME VARIANT [POSITION] [--json] [--db PATH]``: one query about a
    position of a built variant, printed as ``text`` or, with ``--json``, as its ``to_dict()``."""

    def run(
        variant: VariantArg, position: PositionArg = None, json_: JsonOption = False, db: DbOption = tablebase.DEFAULT_DB
    ) -> None:
        with tablebase.open(db) as tb:
            vt = tb.variant(variant)
            result = query(vt, position)
            if json_:
                emit_json(as_json(result))
            else:
                typer.echo(text(vt, result))

    command(name=name, help=summary)(run)


#: What ``probe``, ``best`` and ``line`` say in their help of the search they may run.
MAY_SEARCH = (
    " Reads only; a position the file holds with its value only (stored by `tablebase solve`) has"
    " its moves proved by a search of at most 2 s, not stored."
)
position_command(
    "probe",
    "Value of a position and of every legal move, best first." + MAY_SEARCH,
    lambda vt, p: vt.probe(p, search=True),
    probe_text,
)
position_command(
    "best",
    "The best move in a position." + MAY_SEARCH,
    lambda vt, p: vt.probe(p, search=True),
    lambda vt, result: best_text(result),
    lambda result: result.best_dict(),
)
position_command(
    "line",
    "The perfect line from a position to the end." + MAY_SEARCH,
    lambda vt, p: vt.line(p, search=True),
    lambda vt, r: line_text(r),
)
position_command(
    "predecessors",
    "Positions one move before the given one.",
    lambda vt, p: vt.predecessors(p),
    lambda vt, preds: predecessors_text(preds),
)
position_command(
    "key",
    "The key a position is stored under (its canonical form) and how its moves are named there.",
    lambda vt, p: vt.key(p),
    lambda vt, stored: key_text(stored),
)


@command(help="Positions and symmetry classes per ply, and outcome totals.")
def stats(
    variant: VariantArg,
    count: Annotated[
        bool, typer.Option("--count", help="Count from the rules instead of the database (no build needed, no outcomes).")
    ] = False,
    json_: JsonOption = False,
    db: DbOption = tablebase.DEFAULT_DB,
) -> None:
    if count:
        result = tablebase.count(variant)
    else:
        with tablebase.open(db) as tb:
            try:
                result = tb.variant(variant).stats()
            except tablebase.VariantNotBuiltError as exc:
                raise tablebase.VariantNotBuiltError(f"{exc}; or count it from the rules: tablebase stats {variant} --count") from None
    if json_:
        emit_json(result.to_dict())
        return
    typer.echo(stats_text(result))


@command(help="Re-derive every stored label from its children and the rules; exit 1 on any disagreement.")
def verify(
    variants: Annotated[Optional[list[str]], typer.Argument(help="Variants to check (default: all built).")] = None,
    sample: Annotated[
        Optional[int], typer.Option("--sample", min=1, help="Check this many random states against their children.")
    ] = None,
    search: Annotated[
        Optional[int],
        typer.Option("--search", min=1, help="Also prove this many random stored positions with moves again by the search."),
    ] = None,
    json_: JsonOption = False,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No progress lines.")] = False,
    db: DbOption = tablebase.DEFAULT_DB,
) -> None:
    reports = []
    with tablebase.open(db) as tb:
        for name in list(variants or [i.name for i in tb.variants()]):
            progress = None if quiet else BuildProgress(name)
            try:
                reports.append(tb.verify(name, sample=sample, progress=progress, search=search))
            finally:
                if progress is not None:
                    progress.close()
    if json_:
        emit_json([r.to_dict() for r in reports])
    else:
        for r in reports:
            typer.echo(verify_text(r))
    if not all(r.ok for r in reports):
        raise typer.Exit(1)


@command(
    help="Check seed 004's strategies for ultimate by machine: X wins within 43 moves, "
    "or with --lower-bound: against O's strategy LBS, X cannot win before turn 29."
)
def strategy(
    game: Annotated[str, typer.Argument(help="The game whose strategy to check (ultimate).")],
    lower_bound: Annotated[
        bool, typer.Option("--lower-bound", help="Check O's strategy LBS (seed 004, lemmas 4 and 5).")
    ] = False,
    walk_to: Annotated[
        int,
        typer.Option(
            "--walk-to",
            min=0,
            help="With --lower-bound: also walk every LBS line, unpruned, until x moves at this turn "
            "(9: seconds, 11: minutes), checking the invariant the search's bound rests on.",
        ),
    ] = 0,
    json_: JsonOption = False,
) -> None:
    report = tablebase.check_strategy(game, lower_bound=lower_bound, walk_to=walk_to)
    if json_:
        emit_json(report.to_dict())
    else:
        typer.echo(report.summary())


@command(
    help="Play against perfect play in the terminal ('?' lists your moves' values, 'undo', 'quit'). In a variant"
    " the file does not hold whole, a position it lacks is proved by a search and stored, as `tablebase solve` does."
)
def play(
    variant: VariantArg,
    position: PositionArg = None,
    as_: Annotated[
        str, typer.Option("--as", help="Your side: a player's name (x or o for most games), first or second.")
    ] = "first",
    db: DbOption = tablebase.DEFAULT_DB,
) -> None:
    with tablebase.open(db) as tb, tb.solver(variant) as solver:
        choices = sides(solver.game.players)
        human = choices.get(as_.lower())
        if human is None:
            fail(f"invalid side {as_!r} for {variant}: use {', '.join(choices)}")
        Match(tb, solver, variant, human).run(position)


@command(help="Serve the HTTP JSON API and the web board, read-only unless --write (needs the serve extra).")
def serve(
    host: Annotated[str, typer.Option(help="Address to listen on (0.0.0.0: every interface).")] = "127.0.0.1",
    port: Annotated[int, typer.Option(help="TCP port.")] = 8000,
    access_log: Annotated[bool, typer.Option("--access-log/--no-access-log", help="Log every request.")] = False,
    solvers: Annotated[
        Optional[int],
        typer.Option(min=1, help="Worker processes for searches (/solve); default: one per core but one."),
    ] = None,
    solver_memory: Annotated[
        int, typer.Option(min=1, help="Memory in MB a search worker may keep before it is replaced.")
    ] = 1024,
    write: Annotated[
        bool,
        typer.Option(
            "--write/--read-only",
            help="Store what /solve proves in the file (as `tablebase solve` does); default: read only.",
        ),
    ] = False,
    workers: Annotated[
        Optional[int],
        typer.Option(
            min=1,
            help="HTTP processes sharing the port (default: one per core); searches stay in --solvers processes.",
        ),
    ] = None,
    max_age: Annotated[
        int,
        typer.Option(min=0, help="Seconds browsers and shared caches may keep an answer (Cache-Control; 0: revalidate)."),
    ] = 3600,
    db: DbOption = tablebase.DEFAULT_DB,
) -> None:
    try:
        from tablebase.serve import run
        from tablebase.serve.launch import default_workers
    except ModuleNotFoundError as exc:
        fail(f"serving needs the 'serve' extra (missing {exc.name}): pip install 'tablebase[serve]'")
        return
    run(
        db,
        host=host,
        port=port,
        access_log=access_log,
        solvers=solvers,
        memory_cap=solver_memory << 20,
        write=write,
        workers=default_workers() if workers is None else workers,
        max_age=max_age,
    )


@command(group=db_app, name="upgrade", help="Create the schema or upgrade it to the newest revision (alembic).")
def db_upgrade(db: DbOption = tablebase.DEFAULT_DB) -> None:
    with tablebase.open(db) as tb:
        before, after = tb.upgrade()
    if before == after:
        typer.echo(f"{db}: schema is up to date ({after})")
    else:
        typer.echo(f"{db}: schema upgraded from {before or 'empty'} to {after}")


def main() -> None:
    """Console-script entry point: the app, with a line on stderr while code compiles for its first use."""
    on_compile(compile_note)
    app()


if __name__ == "__main__":
    main()
