"""Writes tests/data/formats/report.pdf: a 3-page PDF with text content streams, made by hand.

pypdf reads PDFs but cannot lay out text, so the test PDF is written here object by object:
a catalog, a page tree, one page and one content stream a page (Helvetica, one text line a
`Tj`), an information dictionary (title, author, creation and modification dates), and the
cross-reference table with exact byte offsets. Run `python -m tests.orchestration.kb.pdf_fixture` to
write it again; the file is kept in the repo so the tests need not run this.
"""

from __future__ import annotations

from pathlib import Path

TARGET = Path(__file__).resolve().parents[2] / "data" / "formats" / "report.pdf"

PAGES = [
    ["Fleet Maintenance Report 2024",
     "Engine inspections are due every 600 flight hours.",
     "The borescope check found no cracks in the first stage blades."],
    ["Fuel figures",
     "The A320neo burned 2,290 kg of fuel per hour on the Lisbon route.",
     "Cruise altitude was kept at 37,000 feet for most sectors."],
    ["Open items",
     "Two cabin pressure sensors were replaced in March.",
     "The next audit of the hangar is planned for October 2024."],
]
INFO = {"Title": "Fleet Maintenance Report 2024", "Author": "Jane Roe",
        "CreationDate": "D:20240305101500Z", "ModDate": "D:20240610080000Z"}


def _escape(text: str) -> str:
    return text.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)")


def build() -> bytes:
    """The PDF file's bytes."""
    count = len(PAGES)
    # objects: 1 catalog, 2 pages, 3 font, 4 info, then page + content per page
    page_ids = [5 + 2 * i for i in range(count)]
    objects: dict[int, bytes] = {
        1: b"<< /Type /Catalog /Pages 2 0 R >>",
        2: f"<< /Type /Pages /Kids [{' '.join(f'{p} 0 R' for p in page_ids)}] /Count {count} >>".encode(),
        3: b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>",
        4: ("<< " + " ".join(f"/{k} ({_escape(v)})" for k, v in INFO.items()) + " >>").encode(),
    }
    for page_id, lines in zip(page_ids, PAGES, strict=True):
        ops = ["BT", "/F1 12 Tf", "16 TL", "72 720 Td"]
        for line in lines:
            ops += [f"({_escape(line)}) Tj", "T*"]
        ops.append("ET")
        stream = "\n".join(ops).encode("latin-1")
        objects[page_id] = (f"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] "
                            f"/Resources << /Font << /F1 3 0 R >> >> /Contents {page_id + 1} 0 R >>").encode()
        objects[page_id + 1] = b"<< /Length %d >>\nstream\n" % len(stream) + stream + b"\nendstream"
    out = bytearray(b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n")
    offsets = {}
    for number in sorted(objects):
        offsets[number] = len(out)
        out += b"%d 0 obj\n" % number + objects[number] + b"\nendobj\n"
    xref = len(out)
    size = max(objects) + 1
    out += b"xref\n0 %d\n0000000000 65535 f \n" % size
    for number in range(1, size):
        out += b"%010d 00000 n \n" % offsets[number]
    out += b"trailer\n<< /Size %d /Root 1 0 R /Info 4 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (size, xref)
    return bytes(out)


if __name__ == "__main__":
    TARGET.write_bytes(build())
