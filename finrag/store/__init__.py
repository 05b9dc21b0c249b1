"""Vector stores behind one small interface: Qdrant's embedded engine and a Qdrant server."""
