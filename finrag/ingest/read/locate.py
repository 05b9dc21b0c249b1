"""Finding filing units on disk: accession folders of a sec-edgar-downloader tree, or loose
files."""

from __future__ import annotations

from pathlib import Path

from finrag.ingest.read.common import LOOSE_SUFFIXES, UNIT_MARKERS, ReadError


def locate(paths: list[Path]) -> list[Path]:
    """Expand user paths into filing units (accession folders or loose files), sorted."""
    units: set[Path] = set()
    for path in paths:
        path = Path(path)
        if not path.exists():
            raise ReadError(f"{path}: no such file or directory")
        units.update(_units_under(path) if path.is_dir() else [path])
    return sorted(units)


def _units_under(folder: Path) -> list[Path]:
    """The units in a folder: itself if it is an accession folder, else what it holds."""
    if is_accession_folder(folder):
        return [folder]
    found: list[Path] = []
    for child in sorted(folder.iterdir()):
        if child.name.startswith("."):
            continue
        if child.is_dir():
            found.extend(_units_under(child))
        elif child.suffix.lower() in LOOSE_SUFFIXES:
            found.append(child)
    return found


def is_accession_folder(folder: Path) -> bool:
    """True if the folder directly holds one of the downloader's filing documents."""
    names = {p.name for p in folder.iterdir() if p.is_file()}
    return any(n in UNIT_MARKERS or _is_submission_name(n) for n in names)


def _is_submission_name(name: str) -> bool:
    return name.startswith("full-submission") and name.endswith(".txt")
