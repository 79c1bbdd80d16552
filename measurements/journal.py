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
import os
from typing import Any

from posbias.errors import InvalidArgument

__all__ = ["JOURNAL_FORMAT", "JOURNAL_SUFFIX", "MeasurementJournal", "check_fresh",
           "windows_done"]

JOURNAL_FORMAT = "posbias-measure-journal/1"
#: the journal of output ``FILE`` is ``FILE + JOURNAL_SUFFIX``
JOURNAL_SUFFIX = ".windows.jsonl"


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

    def _read(self, check: bool = True) -> tuple[list[dict], bool, int]:
        """The window records, whether the journal is complete, and the byte length of its
        whole lines (a last line without its newline was cut short and is not counted).
        ``check=False`` skips the comparison of fingerprints."""
        with open(self.path, "rb") as fh:
            data = fh.read()
        whole = data[: data.rfind(b"\n") + 1]
        records: list[dict] = []
        complete = False
        keep, good, offset = 0, 0, 0  # records and bytes up to the last resumable record
        for k, raw in enumerate(whole.split(b"\n")[:-1]):
            offset += len(raw) + 1
            try:
                obj = json.loads(raw.decode("utf-8"))
            except (UnicodeDecodeError, json.JSONDecodeError):
                obj = None
            if not isinstance(obj, dict):
                raise InvalidArgument("resume", self.path, f"a journal of JSON lines (line "
                                      f"{k + 1} is not one)")
            if k == 0:
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
                good = offset
            elif obj.get("complete") is True:
                complete = True
                keep, good = len(records), offset
            elif obj.get("window") != len(records):
                raise InvalidArgument("resume", self.path, f"window records in order (line "
                                      f"{k + 1} holds window {obj.get('window')}, expected "
                                      f"{len(records)})")
            else:
                records.append(obj)
                if obj.get("resumable", True):
                    keep, good = len(records), offset
        if not whole:
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
