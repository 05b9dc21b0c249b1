"""The bundled sample: five real 10-Ks (AAPL FY2023 + FY2024, NVDA FY2024, TSLA FY2024,
HD FY2024), gzip-compressed in `finrag/ingest/sample_filings/`, unpacked into the data dir to be
indexed."""

from __future__ import annotations

import gzip
import shutil
from pathlib import Path

SAMPLE_DIR = Path(__file__).with_name("sample_filings")


def unpack_sample(data_dir: Path) -> Path:
    """Decompress the sample into `data_dir/sample-filings` (idempotent) and return that path."""
    dest = data_dir / "sample-filings"
    for packed in sorted(SAMPLE_DIR.rglob("*.gz")):
        target = dest / packed.relative_to(SAMPLE_DIR).with_suffix("")
        if target.exists() and target.stat().st_size > 0:
            continue
        target.parent.mkdir(parents=True, exist_ok=True)
        tmp = target.with_name(target.name + ".part")
        with gzip.open(packed, "rb") as src, open(tmp, "wb") as out:
            shutil.copyfileobj(src, out)
        tmp.replace(target)
    return dest
