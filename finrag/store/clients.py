"""Where the qdrant-client comes from: the server named by FINRAG_QDRANT_URL, or one shared
in-process client for `:memory:` (tests). qdrant-client is imported only when a server is used."""

from __future__ import annotations


def client_for(settings):
    """The qdrant-client for the configured server URL (`:memory:`: one in-process client)."""
    from qdrant_client import QdrantClient

    url = settings.qdrant_url
    if url == ":memory:":
        return _memory_client()
    return QdrantClient(url=url, api_key=settings.qdrant_api_key, timeout=10)


_MEMORY_CLIENT = None


def _memory_client():
    """One shared in-process client, so writer and reader in one process see the same data."""
    global _MEMORY_CLIENT
    if _MEMORY_CLIENT is None:
        from qdrant_client import QdrantClient

        _MEMORY_CLIENT = QdrantClient(location=":memory:")
    return _MEMORY_CLIENT

