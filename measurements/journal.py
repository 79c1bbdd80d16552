"""Resumable measurements: a journal of finished windows, one JSON line each, beside the output.

A measurement over ``N`` windows (:func:`posbias.measurements.pretrained.measure_pretrained`)
appends, as each window finishes, one line holding that window's normalised profile and the
running state of every accumulator after it (the sums of ``lambda_t``, the raw ``q.k`` sums, the
calls, the attention-uniformity values the window added, the probe generator's state).  The
first line is a header with the measurement's *fingerprint* (model, dtype, metric, probes, seed,
threads, device, the windows' SHA-256, ...).  An interrupted run continued with ``resume=True``
restores the state after the last finished window and goes on from the next: floats are written
with Python's ``repr`` (exact for float64) and the sums are restored, not re-added, so the
resumed run gives bit for bit the profile of an uninterrupted one.  A journal of another
measurement (a different fingerprint) is refused, naming what differs.

A journal is read as data, never trusted: as a regular file, one line at a time, each line no
longer than a window's record of the measurement can be (:func:`line_cap`) and no more lines than
its windows; every window record must hold a profile of the measurement's length of finite
numbers >= 0, and the record a run resumes from every accumulator as finite numbers, counts and
lists of one length.  Anything else is refused naming ``resume``, the file and the line.

Each line is written with one ``write``, flushed and ``fsync``-ed before the next window starts;
a last line cut short by a kill is dropped on resume (that window runs again).  Windows measured
together in one batch are written together, and only the batch's last record carries the state
(``"resumable": false`` on the others): records after the last resumable one are dropped on
resume and measured again.  A finished
measurement ends its journal with ``{"complete": true}``; a fresh run (``resume=False``)
replaces a complete journal but refuses to overwrite an incomplete one, which would lose the
finished windows.
"""

from __future__ import annotations

import json
import math
import os
import stat
from typing import Any

import numpy as np

from posbias.errors import InvalidArgument
from posbias.numbers import byte_size
from posbias.validation import MAX_LENGTH

__all__ = ["JOURNAL_FORMAT", "JOURNAL_SUFFIX", "MeasurementJournal", "check_fresh", "line_cap",
           "windows_done"]

JOURNAL_FORMAT = "posbias-measure-journal/1"
#: the journal of output ``FILE`` is ``FILE + JOURNAL_SUFFIX``
JOURNAL_SUFFIX = ".windows.jsonl"


#: the header line holds the fingerprint: a model path, hashes and a few settings
_HEADER_BYTES = 64 * 2**10
#: a window record's fixed part: seconds, the generator state, per block the lambda sums and
#: per block and head the q.k sums (4 MiB hold 150,000 floats: 300 blocks of 160 heads)
_RECORD_BYTES = 4 * 2**20
#: a float as ``repr`` writes it, with its separator (at most 24 + 2 characters)
_FLOAT_BYTES = 26
#: the journal of a measurement whose fingerprint does not give its windows
_MAX_WINDOWS = 10**7
#: the accumulators a resumable record restores: one entry per block each
_PER_BLOCK = ("lambda_sums", "lambda_passes", "calls", "diag", "lower", "scale", "alibi_scale",
              "slopes")


def line_cap(length: int) -> int:
    """The longest journal line a measurement of windows of ``length`` tokens writes, in bytes:
    the profile's ``length`` floats and the fixed part (:data:`_RECORD_BYTES`)."""
    return _RECORD_BYTES + _FLOAT_BYTES * length


def _count(value: Any, hi: int) -> int | None:
    """``value`` when it is an integer in ``1 .. hi``, else None."""
    ok = isinstance(value, int) and not isinstance(value, bool) and 1 <= value <= hi
    return value if ok else None


def _finite_reals(value: Any, depth: int = 1) -> bool:
    """Whether ``value`` is a list (nested ``depth`` deep) of finite JSON numbers."""
    if not isinstance(value, list):
        return False
    if depth > 1:
        return all(_finite_reals(v, depth - 1) for v in value)
    return all(isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x)
               for x in value)


def _counts(value: Any) -> bool:
    return isinstance(value, list) and all(
        isinstance(x, int) and not isinstance(x, bool) and x >= 0 for x in value)


def _optional(value: Any, test: Any) -> bool:
    return isinstance(value, list) and all(x is None or test(x) for x in value)


def _scalar(x: Any) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x)


def _record_problem(obj: dict, length: int | None) -> str | None:
    """What is wrong with the window record ``obj`` (None when nothing): the profile, the
    seconds and, on a resumable record, every accumulator (see the module docstring)."""
    profile: Any = obj.get("profile")
    if not _finite_reals(profile) or any(x < 0 for x in profile):
        return "its profile is not a list of finite numbers >= 0"
    if length is not None and len(profile) != length:
        return f"its profile has {len(profile)} entries, not the windows' {length}"
    if not _scalar(obj.get("seconds")) or obj["seconds"] < 0:
        return "its seconds are not a finite number >= 0"
    if not isinstance(obj.get("resumable", True), bool):
        return "its resumable mark is not true or false"
    if "tv" in obj and not _finite_reals(obj["tv"], 2):
        return "its attention values (tv) are not lists of finite numbers"
    if not obj.get("resumable", True):
        return None
    missing = [key for key in (*_PER_BLOCK, "tv", "head_dim", "rng") if key not in obj]
    if missing:
        return "it lacks " + ", ".join(missing)
    tests = {"lambda_sums": _finite_reals, "lambda_passes": _counts, "calls": _counts,
             "diag": lambda v: _optional(v, _finite_reals),
             "lower": lambda v: _optional(v, _finite_reals),
             "slopes": lambda v: _optional(v, _finite_reals),
             "scale": lambda v: _optional(v, _scalar),
             "alibi_scale": lambda v: _optional(v, _scalar)}
    for key, test in tests.items():
        if not test(obj[key]):
            return f"its {key} are not what the measurement stores"
    if len({len(obj[key]) for key in (*_PER_BLOCK, "tv")}) != 1:
        return "its accumulators are not one entry per block each"
    if obj["head_dim"] is not None and _count(obj["head_dim"], 2**20) is None:
        return "its head_dim is not a positive integer"
    rng = obj["rng"]
    if rng is not None and not (isinstance(rng, str) and len(rng) % 2 == 0
                                and len(rng) <= 2**16 and all(c in "0123456789abcdef"
                                                              for c in rng)):
        return "its generator state (rng) is not hexadecimal bytes"
    return None


def windows_done(path: str | os.PathLike[str]) -> int:
    """The windows a run resumed from the journal ``path`` will not measure again (its
    resumable window records; for planning the time that is left, before the measurement is
    set up).  0 where there is no journal or it cannot be read: the resumed measurement then
    refuses it, naming why."""
    if not os.path.isfile(path):  # none, or not a regular file (never opened: a FIFO blocks)
        return 0
    try:
        records, _, _ = MeasurementJournal(path, {})._read(check=False)
    except (OSError, InvalidArgument):
        return 0
    return len(records)


def check_fresh(path: str | os.PathLike[str]) -> None:
    """Refuse (naming ``resume``) a fresh run whose journal ``path`` exists and is not complete:
    writing a new one would lose the windows it holds.  Reads only the file's last line."""
    path = os.fspath(path)
    if not os.path.exists(path):
        return
    complete = False
    if os.path.isfile(path):
        with open(path, "rb") as fh:
            fh.seek(max(0, os.path.getsize(path) - 64))
            complete = fh.read().rstrip(b"\n").endswith(b'{"complete": true}')
    if not complete:
        raise InvalidArgument("resume", path, "no incomplete journal in the way of a fresh run "
                              "(continue it with --resume, or remove it)")


class MeasurementJournal:
    """The journal at ``path`` of the measurement with ``fingerprint`` (a JSON-able dict).

    :meth:`start` reads what an earlier run finished (with ``resume``) or begins a new journal,
    and returns the finished windows' records in order; :meth:`append` adds one window;
    :meth:`finish` marks the journal complete.
    """

    def __init__(self, path: str | os.PathLike[str], fingerprint: dict[str, Any], *,
                 resume: bool = False) -> None:
        self.path = os.fspath(path)
        # compared after a JSON round trip, as it is read back
        self.fingerprint = json.loads(json.dumps(fingerprint, sort_keys=True))
        self.resume = bool(resume)
        self.complete = False

    def _limits(self, theirs: dict) -> tuple[int, int | None]:
        """The most window records and the profile length of this journal: from this
        measurement's fingerprint, else (the header of a journal read for planning only) from
        the journal's own within the library's bounds."""
        def pick(key: str, hi: int) -> int | None:
            mine = self.fingerprint.get(key)
            return _count(mine if mine is not None else theirs.get(key), hi)

        return pick("windows", _MAX_WINDOWS) or _MAX_WINDOWS, pick("length", MAX_LENGTH)

    def _lines(self) -> Any:
        """``(line number, bytes)`` of each whole line (a last line without its newline was
        cut short and is not yielded), each at most :func:`line_cap` long and no more than the
        measurement's windows and two (the header and the end mark)."""
        try:  # O_NONBLOCK: a FIFO put in place since the check opens at once instead of blocking
            fd = os.open(self.path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
        except OSError as exc:
            raise InvalidArgument("resume", self.path, f"a readable journal ({exc.strerror})"
                                  ) from None
        with open(fd, "rb") as fh:
            if not stat.S_ISREG(os.fstat(fh.fileno()).st_mode):
                raise InvalidArgument("resume", self.path, "a regular file for the journal")
            cap, most = _HEADER_BYTES, 1
            for k in range(1, 2**62):
                raw = fh.readline(cap + 1)
                if not raw.endswith(b"\n"):
                    if len(raw) > cap:
                        raise InvalidArgument("resume", self.path, f"a journal whose line {k} "
                                              f"is at most {byte_size(cap)} long (this "
                                              "measurement's records are)")
                    return  # the end, or a last line cut short by a kill
                if k > most:
                    raise InvalidArgument("resume", self.path, f"a journal of at most {most} "
                                          "lines (this measurement's windows, its header and "
                                          "its end mark)")
                yield k, raw[:-1]
                if k == 1:  # _read has read the header: the measurement's bounds are known
                    windows, length = self._header_limits
                    cap, most = line_cap(length or 0), windows + 2

    def _read(self, check: bool = True) -> tuple[list[dict], bool, int]:
        """The window records, whether the journal is complete, and the byte length of its
        whole lines up to the last resumable record.  Profiles come back as float64 arrays;
        only the record a run resumes from keeps its accumulators.  ``check=False`` skips the
        comparison of fingerprints."""
        records: list[dict] = []
        complete = False
        keep, good, offset = 0, 0, 0  # records and bytes up to the last resumable record
        length: int | None = None
        self._header_limits = self._limits({})
        for k, raw in self._lines():
            offset += len(raw) + 1
            try:
                obj = json.loads(raw.decode("utf-8"))
            except (UnicodeDecodeError, ValueError, RecursionError):  # JSONDecodeError is one
                obj = None
            if not isinstance(obj, dict):
                raise InvalidArgument("resume", self.path, f"a journal of JSON lines (line "
                                      f"{k} is not one)")
            if k == 1:
                if obj.get("format") != JOURNAL_FORMAT:
                    raise InvalidArgument("resume", self.path, f"a {JOURNAL_FORMAT} journal")
                theirs = obj.get("fingerprint")
                if not isinstance(theirs, dict):
                    theirs = {}
                if check and theirs != self.fingerprint:
                    differ = [key for key in sorted(set(self.fingerprint) | set(theirs))
                              if theirs.get(key) != self.fingerprint.get(key)]
                    raise InvalidArgument("resume", self.path, "the journal of this "
                                          "measurement (it differs in " + ", ".join(differ) + ")")
                self._header_limits = self._limits(theirs)
                length = self._header_limits[1]
                good = offset
            elif obj.get("complete") is True:
                complete = True
                keep, good = len(records), offset
            elif (not isinstance(obj.get("window"), int) or isinstance(obj["window"], bool)
                  or obj["window"] != len(records)):
                raise InvalidArgument("resume", self.path, f"a journal of window records in order (line "
                                      f"{k} holds window {obj.get('window')!r:.20}, expected "
                                      f"{len(records)})")
            else:
                problem = _record_problem(obj, length)
                if problem is not None:
                    raise InvalidArgument("resume", self.path, f"a journal of this "
                                          f"measurement's window records (line {k}: {problem})")
                obj["profile"] = np.array(obj["profile"], dtype=np.float64)
                records.append(obj)
                if obj.get("resumable", True):
                    if keep:  # only the last resumable record's accumulators are restored
                        for key in _PER_BLOCK:
                            records[keep - 1].pop(key, None)
                    keep, good = len(records), offset
                else:
                    for key in _PER_BLOCK:
                        obj.pop(key, None)
        if offset == 0:
            raise InvalidArgument("resume", self.path, "a journal with its header line")
        return records[:keep], complete, good

    def start(self) -> list[dict]:
        """The records of the windows an earlier run finished (``resume`` and a journal at
        :attr:`path`), else ``[]`` after writing a new header."""
        if os.path.exists(self.path):
            if not os.path.isfile(self.path):
                raise InvalidArgument("resume", self.path, "a regular file for the journal")
            if self.resume:
                records, complete, good = self._read()
                with open(self.path, "r+b") as fh:  # drop a cut-short last line
                    fh.truncate(good)
                self.complete = complete
                return records
            check_fresh(self.path)
        header = {"format": JOURNAL_FORMAT, "fingerprint": self.fingerprint}
        tmp = self.path + ".tmp"
        with open(tmp, "w", encoding="utf-8") as fh:
            fh.write(json.dumps(header, sort_keys=True) + "\n")
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, self.path)
        return []

    def _write(self, obj: dict) -> None:
        line = json.dumps(obj, sort_keys=True, allow_nan=True) + "\n"
        with open(self.path, "a", encoding="utf-8") as fh:
            fh.write(line)
            fh.flush()
            os.fsync(fh.fileno())

    def append(self, record: dict) -> None:
        """Add one finished window (``record["window"]`` its 0-based index)."""
        self._write(record)

    def finish(self) -> None:
        """Mark the journal complete (once)."""
        if not self.complete:
            self._write({"complete": True})
            self.complete = True
