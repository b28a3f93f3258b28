"""Entry point of the ``tablebase`` console script, and the fast path of ``tablebase probe``.

``tablebase probe`` is the command scripts run in loops, so it is answered
here without importing the command-line framework: typer (and the pydantic
it loads) takes longer to import than the probe takes to answer. Only the
plain form ``tablebase probe VARIANT [POSITION] [--json] [--db PATH]`` is
handled here, with the same output and errors as the typer command; anything
else (help, an unknown option, every other command) goes to the typer app in
:mod:`cli.main`.
"""

from __future__ import annotations

import json
import os
import sys
import time
from typing import NamedTuple, Optional

import cli
from cli.render import probe_text


class ProbeArgs(NamedTuple):
    """A plain ``probe`` invocation."""

    variant: str
    position: Optional[str]
    json: bool
    db: str


def parse_probe(args: list[str], default_db: str) -> ProbeArgs | None:
    """The arguments after ``probe``, or ``None`` when they need the full command line parser."""
    positional: list[str] = []
    as_json = False
    db = os.environ.get("TABLEBASE_DB") or default_db
    options = True
    i = 0
    while i < len(args):
        arg = args[i]
        if options and arg == "--":
            options = False
        elif options and arg == "--json":
            as_json = True
        elif options and arg == "--db" and i + 1 < len(args):
            i += 1
            db = args[i]
        elif options and arg.startswith("--db="):
            db = arg[len("--db=") :]
        elif options and arg.startswith("-"):
            return None
        else:
            positional.append(arg)
        i += 1
    if not 1 <= len(positional) <= 2:
        return None
    return ProbeArgs(positional[0], positional[1] if len(positional) == 2 else None, as_json, db)


def run_probe(args: ProbeArgs) -> int:
    """Answer a probe like the typer command does; the exit code."""
    import tablebase

    try:
        with tablebase.open(args.db) as tb:
            vt = tb.variant(args.variant)
            result = vt.probe(args.position, search=True)
            text = json.dumps(result.to_dict(), indent=2) if args.json else probe_text(vt, result)
    except tablebase.TablebaseError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("error: interrupted; the database is unchanged", file=sys.stderr)
        return 1
    try:
        print(text, flush=True)
    except BrokenPipeError:
        # the reader went away (``| head``): say nothing more, like click does
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1
    return 0


def main() -> None:
    """Console-script entry point."""
    cli.LAUNCHED = time.perf_counter()
    args = sys.argv[1:]
    if args[:1] == ["probe"]:
        from tablebase.query import DEFAULT_DB

        parsed = parse_probe(args[1:], DEFAULT_DB)
        if parsed is not None:
            sys.exit(run_probe(parsed))
    from cli.main import main as typer_main

    typer_main()


if __name__ == "__main__":
    main()
