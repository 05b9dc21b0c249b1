"""Bytes -> text: refuse binary files, decode UTF-8 with cp1252 strays, UTF-16/32 with a BOM."""

from __future__ import annotations

import codecs
import re

_CONTROLS = re.compile(r"[\x00-\x08\x0b\x0e-\x1f]")  # C0 controls but tab, newlines, form feed


def _is_binary(raw: bytes) -> bool:
    """More than 1% NUL bytes, or 5% control characters, in the first 4 KB (a stray NUL in a
    damaged filing is dropped, not a reason to refuse the filing)."""
    sample = raw[:4096]
    if sample.count(0) * 100 > len(sample):
        return True
    controls = sum(b < 32 and b not in (9, 10, 12, 13) for b in sample)
    return controls > len(sample) * 0.05


def _decode(raw: bytes) -> str:
    """UTF-8, where bytes that are not UTF-8 (a cp1252 or latin-1 file, or one stray cp1252
    quote in a UTF-8 file) decode one by one as cp1252; a byte-order mark is dropped."""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        text = raw.decode("utf-8", errors=_CP1252_BYTES)
    return text.removeprefix("\ufeff")


def _cp1252_bytes(error: UnicodeDecodeError) -> tuple[str, int]:
    return error.object[error.start:error.end].decode("cp1252", errors="replace"), error.end


_CP1252_BYTES = "finrag-cp1252-bytes"
codecs.register_error(_CP1252_BYTES, _cp1252_bytes)


_WIDE_BOMS = ((codecs.BOM_UTF32_LE, "utf-32"), (codecs.BOM_UTF32_BE, "utf-32"),
              (codecs.BOM_UTF16_LE, "utf-16"), (codecs.BOM_UTF16_BE, "utf-16"))


def _wide_to_utf8(raw: bytes) -> bytes:
    """UTF-16/32 text (saved by some editors and converters) as UTF-8: with a byte-order mark,
    or UTF-16 without one when every other byte of the start is NUL. Other bytes unchanged."""
    encoding = next((enc for bom, enc in _WIDE_BOMS if raw.startswith(bom)), None)
    sample = raw[:4096]
    if encoding is None and len(sample) >= 64 and sample.count(0) * 2 >= len(sample) * 0.9:
        odd_nuls = sample[1::2].count(0)
        encoding = "utf-16-le" if odd_nuls > sample[::2].count(0) else "utf-16-be"
    if encoding is None:
        return raw
    return raw.decode(encoding, errors="replace").encode("utf-8")
