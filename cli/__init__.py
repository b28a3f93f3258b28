"""The typer command line of tablebase."""
