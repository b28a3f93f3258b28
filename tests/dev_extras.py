"""What ``pip install -e '.[dev]'`` installs, and the hooks that fail a skip for want of it on CI.

A test module or test that cannot import an optional module is skipped
(``pytest.importorskip``), so ``pip install -e .`` without extras runs what it
can. Where the environment variable ``CI`` is set (CI services set
``CI=true``; ``.ci/run`` sets it too), the environment is meant to hold
``.[dev]``: a skip caused by a module that one of the distributions ``.[dev]``
lists provides (through tablebase's own extras and the extras it asks of
others, as ``dask[distributed]``) is reported as a failure, and the run stops
at its start when one of those distributions is not installed at all (its
modules' names may not be its own: open-spiel's is ``pyspiel``).
"""

from __future__ import annotations

import os
from functools import lru_cache
from importlib import metadata
from typing import Any, Iterable

import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

#: The distribution whose ``dev`` extra is meant.
PROJECT = "tablebase"
#: The extra CI installs.
EXTRA = "dev"

_CAUSE = pytest.StashKey[str]()


def on_ci() -> bool:
    """Whether the environment variable ``CI`` says this run is CI's (set, and not ``0``, ``false`` or ``no``)."""
    return os.environ.get("CI", "").strip().lower() not in ("", "0", "false", "no")


def listed(requires: Iterable[str], extra: str = EXTRA, project: str = PROJECT) -> dict[str, set[str]]:
    """The distributions ``project[extra]`` lists among ``requires`` (its metadata's requirement
    lines), following its extras that name ``project`` again, each with the extras asked of it."""
    lines = [Requirement(line) for line in requires]
    found: dict[str, set[str]] = {}
    todo, seen = [extra], set()
    while todo:
        current = todo.pop()
        if current in seen:
            continue
        seen.add(current)
        for requirement in lines:
            marker = requirement.marker
            if marker is None or not marker.evaluate({"extra": current}) or marker.evaluate({"extra": ""}):
                continue  # not asked by this extra (a plain dependency, another extra, another Python)
            name = canonicalize_name(requirement.name)
            if name == canonicalize_name(project):
                todo.extend(requirement.extras)
            else:
                found.setdefault(name, set()).update(requirement.extras)
    return found


def plain(requires: Iterable[str]) -> dict[str, set[str]]:
    """The distributions every install gets among ``requires``: those no extra asks for (numba)."""
    found: dict[str, set[str]] = {}
    for requirement in (Requirement(line) for line in requires):
        marker = requirement.marker
        if marker is None or marker.evaluate({"extra": ""}):
            found.setdefault(canonicalize_name(requirement.name), set()).update(requirement.extras)
    return found


def _requires(name: str) -> list[str]:
    try:
        return list(metadata.requires(name) or ())
    except metadata.PackageNotFoundError:
        return []


@lru_cache(maxsize=1)
def dev_distributions() -> dict[str, set[str]]:
    """Each distribution ``.[dev]`` installs: the plain dependencies and those ``.[dev]`` lists, with
    the extras asked of each, and the distributions those extras of theirs list (``dask[distributed]``:
    ``distributed``)."""
    requires = _requires(PROJECT)
    found = plain(requires)
    for name, extras in listed(requires).items():
        found.setdefault(name, set()).update(extras)
    for name, extras in list(found.items()):
        for extra in extras:
            for other in listed(_requires(name), extra=extra, project=name):
                found.setdefault(other, set())
    return found


def missing(distributions: Iterable[str]) -> list[str]:
    """Those of ``distributions`` that are not installed."""
    absent = []
    for name in distributions:
        try:
            metadata.distribution(name)
        except metadata.PackageNotFoundError:
            absent.append(name)
    return sorted(absent)


@lru_cache(maxsize=1)
def dev_modules() -> frozenset[str]:
    """The top-level modules the distributions of :func:`dev_distributions` provide: as installed,
    and each distribution's own name as a module name (for one not installed)."""
    wanted = set(dev_distributions())
    modules = {name.replace("-", "_") for name in wanted}
    for module, owners in metadata.packages_distributions().items():
        if any(canonicalize_name(owner) in wanted for owner in owners):
            modules.add(module)
    return frozenset(modules)


def skipped_for(exc: BaseException) -> str | None:
    """The module ``pytest.importorskip`` could not import (or found too old) when it raised the
    skip ``exc`` (its ``modname``, read from its frame), or ``None`` for any other skip."""
    if not isinstance(exc, pytest.skip.Exception):
        return None
    found = None
    tb = exc.__traceback__
    while tb is not None:
        frame = tb.tb_frame
        if frame.f_code.co_name == "importorskip" and isinstance(frame.f_locals.get("modname"), str):
            found = frame.f_locals["modname"]
        tb = tb.tb_next
    return found


def _message(module: str) -> str:
    return (
        f"skipped for want of module {module!r}, which pip install -e '.[dev]' installs;"
        " CI is set, so a missing dev dependency fails the run (unset CI to skip instead)"
    )


def _fail_if_dev(report: Any, module: str | None) -> None:
    if module is not None and report.skipped and module.split(".")[0] in dev_modules():
        report.outcome = "failed"
        report.longrepr = _message(module)


def pytest_configure(config: pytest.Config) -> None:
    """On CI, stop at the start when a distribution ``.[dev]`` lists is not installed."""
    if on_ci():
        absent = missing(dev_distributions())
        if absent:
            raise pytest.UsageError(
                f"CI is set but .[dev] is not installed: {', '.join(absent)} missing (pip install -e '.[dev]')"
            )


@pytest.hookimpl(wrapper=True)
def pytest_make_collect_report(collector: pytest.Collector) -> Any:
    """On CI, a test module skipped for want of a dev module fails to collect instead."""
    if on_ci() and isinstance(collector, pytest.Module):
        try:
            collector.obj
        except pytest.skip.Exception as exc:
            collector.stash[_CAUSE] = skipped_for(exc) or ""
        except Exception:
            pass
    report = yield
    cause = collector.stash.get(_CAUSE, "")
    if cause:
        _fail_if_dev(report, cause)
    return report


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Any:
    """On CI, a test skipped for want of a dev module fails instead."""
    report = yield
    if on_ci() and call.excinfo is not None:
        _fail_if_dev(report, skipped_for(call.excinfo.value))
    return report
