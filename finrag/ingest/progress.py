"""A terminal progress bar for builds (filings read, then chunks embedded, with rate and ETA)."""

from __future__ import annotations

from pathlib import Path

from tqdm import tqdm


class Progress:
    def __init__(self, enabled: bool) -> None:
        self.enabled = enabled
        self._bar = None

    def __enter__(self) -> "Progress":
        return self

    def __exit__(self, *exc) -> None:
        self._close()

    def reading(self, unit: Path) -> None:
        if not self.enabled:
            return
        if self._bar is None:
            self._bar = tqdm(desc="reading filings", unit=" filing")
        self._bar.set_postfix_str(unit.name[-40:])
        self._bar.update(1)

    def embedding(self, todo: int, total: int) -> None:
        self._close()
        if self.enabled and todo:
            self._bar = tqdm(total=todo, desc=f"embedding ({total - todo} of {total} cached)",
                             unit=" chunk")

    def embedded(self, n: int) -> None:
        if self._bar is not None:
            self._bar.update(n)

    def _close(self) -> None:
        if self._bar is not None:
            self._bar.close()
            self._bar = None
