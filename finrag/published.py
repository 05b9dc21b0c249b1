"""The published index a reader opens: the generation a Qdrant server alias names when
`settings.qdrant_index` is set (finrag.remote: nothing local is read), else the local data
directory's (finrag.index). The choice lives here, above both readers, which share only
finrag.manifest below them."""

from __future__ import annotations

from finrag.config import Settings
from finrag.index import Index
from finrag.remote import RemoteIndex


def open_index(settings: Settings) -> Index | RemoteIndex:
    """The published index these settings name (`Index` or `RemoteIndex`: the same reading
    calls)."""
    if settings.qdrant_index:
        return RemoteIndex.open(settings)
    return Index.open(settings)
