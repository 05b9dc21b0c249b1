"""Question and key files: one JSON record a line, each read into what an eval scores.

The figures, series, judged-FinanceBench and FinanceBench loaders share this reader, so a
missing file, a line that is not JSON or not a record of its kind, and an empty file are refused
the same way: one line naming the file (and line) and what was expected.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

T = TypeVar("T")


class DataError(ValueError):
    """A question or key file is missing or malformed; the message names the file and line."""


def read_jsonl(path: Path, parse: Callable[[dict], T], what: str, example: str) -> list[T]:
    """parse(record) of each non-blank line, in order. `what` names a record ("a figures
    question") in the refusals; `example` is a file of the kind, said when the path is missing.
    parse raises KeyError, TypeError or ValueError on a record that is not one."""
    path = Path(path)
    if not path.is_file():
        raise DataError(f"{path}: not found ({what} .jsonl, e.g. {example})")
    out = []
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        try:
            out.append(parse(json.loads(line)))
        except (json.JSONDecodeError, KeyError, TypeError, ValueError) as exc:
            raise DataError(f"{path}:{n}: not {what} ({exc!r})") from None
    if not out:
        raise DataError(f"{path}: holds no records ({what} a line)")
    return out
