"""Writes english_zipf.tsv.gz, the general-English word frequencies `core.reading.frequency` reads.

    .venv/bin/pip install wordfreq==3.1.1   # only to build the table; the service never imports it
    .venv/bin/python core/reading/data/build_english_zipf.py

Every word of wordfreq's English list ("best" wordlist, Zipf scale: log10 of occurrences per
billion words) down to MIN_ZIPF, one "word<TAB>zipf" line each in the list's order, gzip'd
without a timestamp so the same wordfreq gives the same bytes.
"""

from __future__ import annotations

import gzip
import io
from pathlib import Path

MIN_ZIPF = 3.0
OUT = Path(__file__).resolve().parent / "english_zipf.tsv.gz"


def main() -> None:
    from wordfreq import iter_wordlist, zipf_frequency

    lines = []
    for word in iter_wordlist("en"):
        zipf = zipf_frequency(word, "en")
        if zipf < MIN_ZIPF:
            break
        if "\t" not in word and "\n" not in word:
            lines.append(f"{word}\t{zipf:.2f}\n")
    buffer = io.BytesIO()
    with gzip.GzipFile(fileobj=buffer, mode="wb", mtime=0, compresslevel=9) as out:
        out.write("".join(lines).encode("utf-8"))
    OUT.write_bytes(buffer.getvalue())
    print(f"{OUT}: {len(lines)} words, {OUT.stat().st_size} bytes")


if __name__ == "__main__":
    main()
