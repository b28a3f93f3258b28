"""The typer command line of tablebase."""

#: :func:`time.perf_counter` when the console script started (``None`` when the app is run
#: otherwise, as by a test runner): ``solve --time-limit`` counts from there.
LAUNCHED: float | None = None
