"""The installed package's version, read from its distribution metadata."""

from __future__ import annotations


def installed_version() -> str:
    """The version of the installed ``tablebase`` distribution (``"0+unknown"`` when not installed)."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("tablebase")
    except PackageNotFoundError:
        return "0+unknown"


__all__ = ["installed_version"]
