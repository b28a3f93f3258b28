"""The folder a build writes its files in: a local folder, or an fsspec URL (``s3://bucket/dir``).

Raw arrays read, written atomically, joined and memory-mapped by name, the
same whether the tasks of the build run here, in worker processes or on the
workers of a Dask cluster.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import Any

import numpy as np

from tablebase.errors import BuildError

#: Bytes copied at once when files are joined.
COPY_BLOCK = 1 << 24


class BuildDir:
    """The files of one build: a local folder, or an fsspec URL (``s3://bucket/dir``).

    A plain path or a ``file://`` URL is read and written with the operating
    system's calls and memory maps; any other URL goes through :mod:`fsspec`,
    and a whole file that is mapped is first copied to a local cache of this
    process. Names are relative to the build directory (``states-3.u64``,
    ``spill-4/part-0.u64``); every write is atomic.
    """

    def __init__(self, location: str | os.PathLike[str]):
        text = os.fspath(location)
        self.fs: Any = None
        if "://" in text and not text.startswith("file://"):
            try:
                from fsspec.core import url_to_fs
            except ImportError as exc:
                raise BuildError(f"build directory {text[:80]!r} needs fsspec: pip install 'tablebase[cluster]'") from exc
            try:
                self.fs, root = url_to_fs(text)
            except (ImportError, ValueError) as exc:
                raise BuildError(f"build directory {text[:80]!r}: {exc}") from exc
            self.root = root.rstrip("/")
            self.location = text.rstrip("/")
        else:
            self.root = str(Path(text[len("file://") :] if text.startswith("file://") else text).absolute())
            self.location = self.root

    @property
    def path(self) -> Path:
        """The folder, when the build directory is local."""
        if self.fs is not None:
            raise ValueError(f"build directory {self.location[:80]!r} is not a local folder")
        return Path(self.root)

    def _at(self, name: str) -> str:
        return f"{self.root}/{name}" if name else self.root

    def _url(self, name: str) -> str:
        return f"{self.location}/{name}"

    def drop_copy(self, name: str) -> None:
        """Drop this process's local copy of a remote file that :meth:`map` mapped (nothing when local)."""
        _forget(self._url(name))

    def exists(self, name: str) -> bool:
        return bool(self.fs.exists(self._at(name))) if self.fs is not None else os.path.exists(self._at(name))

    def makedirs(self, name: str = "") -> None:
        if self.fs is not None:
            self.fs.makedirs(self._at(name), exist_ok=True)
        else:
            os.makedirs(self._at(name), exist_ok=True)

    def remove(self, name: str) -> None:
        """Delete a file, or a folder with its files, if present."""
        at = self._at(name)
        _forget(self._url(name))
        if self.fs is not None:
            if self.fs.exists(at):
                self.fs.rm(at, recursive=True)
        elif os.path.isdir(at):
            shutil.rmtree(at)
        elif os.path.exists(at):
            os.unlink(at)

    def count(self, name: str, dtype: Any) -> int:
        """The number of values of ``dtype`` in a file."""
        size = self.fs.size(self._at(name)) if self.fs is not None else os.path.getsize(self._at(name))
        return int(size) // int(np.dtype(dtype).itemsize)

    def read(self, name: str, dtype: Any, lo: int = 0, hi: int | None = None) -> np.ndarray:
        """Values ``lo`` to ``hi`` of a file (all of it by default), as a writable array."""
        item = np.dtype(dtype).itemsize
        if hi is None:
            hi = self.count(name, dtype)
        if hi <= lo:
            return np.empty(0, dtype=dtype)
        if self.fs is not None:
            data = self.fs.cat_file(self._at(name), start=lo * item, end=hi * item)
            return np.frombuffer(bytearray(data), dtype=dtype)
        with open(self._at(name), "rb") as f:
            f.seek(lo * item)
            return np.fromfile(f, dtype=dtype, count=hi - lo)

    def map(self, name: str, dtype: Any) -> np.ndarray:
        """A whole file, memory-mapped (from a local copy when the directory is remote)."""
        path = self._at(name) if self.fs is None else _local_copy(self.fs, self._at(name), self._url(name))
        if os.path.getsize(path) == 0:
            return np.empty(0, dtype=dtype)
        return np.memmap(path, dtype=dtype, mode="r")

    def write(self, name: str, values: np.ndarray) -> None:
        """Write ``values`` raw, atomically (a temporary file renamed into place)."""
        values = np.ascontiguousarray(values)
        _forget(self._url(name))
        if self.fs is not None:
            self.fs.pipe_file(self._at(name), values.tobytes())
            return
        at = self._at(name)
        tmp = f"{at}.{os.getpid()}.tmp"
        with open(tmp, "wb") as f:
            values.tofile(f)
        os.replace(tmp, at)

    def concat(self, names: list[str], target: str) -> None:
        """Write the files ``names`` one after the other into ``target``, atomically."""
        _forget(self._url(target))
        if self.fs is not None:
            with self.fs.open(self._at(target), "wb") as out:
                for name in names:
                    with self.fs.open(self._at(name), "rb") as part:
                        shutil.copyfileobj(part, out, COPY_BLOCK)
            return
        at = self._at(target)
        tmp = f"{at}.{os.getpid()}.tmp"
        with open(tmp, "wb") as out:
            for name in names:
                with open(self._at(name), "rb") as part:
                    shutil.copyfileobj(part, out, COPY_BLOCK)
        os.replace(tmp, at)


# local copies of the remote files this process has mapped: URL -> path (ending in the file's fsspec ukey)
_COPIES: dict[str, str] = {}
_COPY_DIR: list[str] = []


def _local_copy(fs: Any, path: str, url: str) -> str:
    if url in _COPIES and not _COPIES[url].endswith(fs.ukey(path)):
        _forget(url)
    if url not in _COPIES:
        if not _COPY_DIR:
            import atexit
            import tempfile

            folder = tempfile.mkdtemp(prefix="tablebase-layers-")
            atexit.register(shutil.rmtree, folder, True)
            _COPY_DIR.append(folder)
        target = os.path.join(_COPY_DIR[0], f"{os.urandom(6).hex()}-{fs.ukey(path)}")
        fs.get_file(path, target)
        _COPIES[url] = target
    return _COPIES[url]


def _forget(url: str) -> None:
    """Drop this process's local copies of ``url`` (a file, or a folder's files)."""
    for key in [k for k in _COPIES if k == url or k.startswith(url + "/")]:
        path = _COPIES.pop(key)
        if os.path.exists(path):
            os.unlink(path)
