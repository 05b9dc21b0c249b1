"""Statement-table facts for filings without inline XBRL (placeholder until the table reader)."""

from __future__ import annotations

from finrag.facts import Fact
from finrag.models import Filing


def table_facts(filing: Filing) -> list[Fact]:
    return []
