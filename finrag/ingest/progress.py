"""One terminal progress bar for a whole build, counted in chunks, with rate and ETA.

Each filing read adds its chunks to the bar's total (the postfix says how many filings are read
so far); embedding advances it, and chunks whose vectors are already cached count as done, so
the rate and ETA are those of the work left. An update reads every filing, then embeds the
changed ones (`embedding`); a first build or --rebuild embeds each filing as it is read
(`cached`, `embedded`), its total then estimated from the filings read so far.
"""

from __future__ import annotations

from pathlib import Path

from tqdm import tqdm


class Progress:
    def __init__(self, enabled: bool, filings: int | None = None) -> None:
        self.enabled = enabled
        self.filings = filings  # how many will be read, where known
        self.read = 0
        self.chunks_read = 0
        self.streaming = False  # embedding as filings are read (`cached`)
        self._bar = None

    def __enter__(self) -> Progress:
        return self

    def __exit__(self, *exc) -> None:
        if self._bar is not None:
            self._bar.close()
            self._bar = None

    def reading(self, unit: Path, chunks: int = 0) -> None:
        """One filing read, with `chunks` chunks."""
        self.read += 1
        self.chunks_read += chunks
        bar = self._open()
        if bar is None:
            return
        bar.total = self._expected()
        of = f"/{self.filings}" if self.filings else ""
        bar.set_postfix_str(f"{self.read}{of} filings read, {unit.name[-40:]}")

    def embedding(self, todo: int, total: int) -> None:
        """Reading is done: `total` chunks, `todo` of them still to embed."""
        bar = self._open()
        if bar is None:
            return
        bar.total = total
        bar.n = total - todo
        bar.set_description("embedding")
        bar.set_postfix_str(f"{self.read} filings read, {total - todo} cached")
        bar.refresh()

    def cached(self, n: int) -> None:
        """A filing read by a build that embeds as it reads: `n` of its chunks were cached.
        Its total is then the chunks read so far scaled to every filing, so the ETA is the
        whole build's, not the filing's."""
        self.streaming = True
        bar = self._open()
        if bar is None:
            return
        bar.set_description("indexing")
        bar.total = self._expected()
        bar.update(n)

    def _expected(self) -> int:
        if self.streaming and self.filings and self.read:
            return max(self.chunks_read, round(self.chunks_read * self.filings / self.read))
        return self.chunks_read

    def embedded(self, n: int) -> None:
        if self._bar is not None:
            self._bar.update(n)

    def _open(self):
        if self.enabled and self._bar is None:
            self._bar = tqdm(total=0, desc="reading", unit=" chunk")
        return self._bar
