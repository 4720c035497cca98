"""Small PDFs written byte by byte for the tests: pages of lines in Helvetica (bold where asked), an outline, an
encryption dictionary. Only what a PDF reader needs: objects, a cross-reference table and a trailer."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path


@dataclass(frozen=True)
class Line:
    text: str
    size: float = 11.0
    bold: bool = False


@dataclass(frozen=True)
class Bookmark:
    title: str
    page: int  # 0-based
    children: tuple[Bookmark, ...] = ()


@dataclass
class _Objects:
    bodies: list[bytes] = field(default_factory=list)

    def reserve(self) -> int:
        self.bodies.append(b"")
        return len(self.bodies)

    def set(self, number: int, body: bytes | str) -> None:
        self.bodies[number - 1] = body.encode("latin-1") if isinstance(body, str) else body


def _escaped(text: str) -> str:
    return text.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)")


def _content(lines: list[Line], header: str | None, footer: str | None) -> bytes:
    parts, y = [], 740.0
    if header is not None:
        parts.append(f"BT /F1 9 Tf 1 0 0 1 72 770 Tm ({_escaped(header)}) Tj ET")
    for line in lines:
        y -= line.size * 1.6
        font = "F2" if line.bold else "F1"
        parts.append(f"BT /{font} {line.size:g} Tf 1 0 0 1 72 {y:.1f} Tm ({_escaped(line.text)}) Tj ET")
    if footer is not None:
        parts.append(f"BT /F1 9 Tf 1 0 0 1 300 30 Tm ({_escaped(footer)}) Tj ET")
    return "\n".join(parts).encode("latin-1")


def make_pdf(path: Path, pages: list[list[Line]], *, outline: tuple[Bookmark, ...] = (),
             headers: str | None = None, page_numbers: bool = False, encrypted: bool = False,
             title: str | None = None) -> Path:
    """Write a PDF of ``pages`` (each a list of lines from the top) to ``path``. ``headers``: a running header on
    every page (``{n}`` is the page number); ``page_numbers``: the number at the foot of each page."""
    objects = _Objects()
    catalog, tree, regular, bold = (objects.reserve() for _ in range(4))
    objects.set(regular, "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>")
    objects.set(bold, "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica-Bold /Encoding /WinAnsiEncoding >>")
    page_ids = []
    for number, lines in enumerate(pages, start=1):
        page, content = objects.reserve(), objects.reserve()
        stream = _content(lines, headers.format(n=number) if headers else None,
                          str(number) if page_numbers else None)
        objects.set(content, b"<< /Length %d >>\nstream\n" % len(stream) + stream + b"\nendstream")
        objects.set(page, f"<< /Type /Page /Parent {tree} 0 R /MediaBox [0 0 612 792] /Contents {content} 0 R "
                          f"/Resources << /Font << /F1 {regular} 0 R /F2 {bold} 0 R >> >> >>")
        page_ids.append(page)
    objects.set(tree, f"<< /Type /Pages /Kids [{' '.join(f'{p} 0 R' for p in page_ids)}] /Count {len(page_ids)} >>")
    extra = ""
    if outline:
        root = objects.reserve()
        first, last, count = _bookmarks(objects, outline, root, page_ids)
        objects.set(root, f"<< /Type /Outlines /First {first} 0 R /Last {last} 0 R /Count {count} >>")
        extra = f" /Outlines {root} 0 R /PageMode /UseOutlines"
    objects.set(catalog, f"<< /Type /Catalog /Pages {tree} 0 R{extra} >>")
    trailer_extra = ""
    if encrypted:
        encrypt = objects.reserve()
        objects.set(encrypt, "<< /Filter /Standard /V 1 /R 2 /Length 40 /P -44 "
                             f"/O <{'ab' * 32}> /U <{'cd' * 32}> >>")
        trailer_extra = f" /Encrypt {encrypt} 0 R /ID [<{'01' * 16}> <{'01' * 16}>]"
    info = ""
    if title is not None:
        info_id = objects.reserve()
        objects.set(info_id, f"<< /Title ({_escaped(title)}) >>")
        info = f" /Info {info_id} 0 R"
    out = bytearray(b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n")
    offsets = []
    for number, body in enumerate(objects.bodies, start=1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % number + body + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(offsets) + 1)
    for offset in offsets:
        out += b"%010d 00000 n \n" % offset
    out += (f"trailer\n<< /Size {len(offsets) + 1} /Root {catalog} 0 R{info}{trailer_extra} >>\n"
            f"startxref\n{xref}\n%%EOF\n").encode("latin-1")
    path.write_bytes(bytes(out))
    return path


def _bookmarks(objects: _Objects, items: tuple[Bookmark, ...], parent: int, page_ids: list[int]) -> tuple[int, int, int]:
    numbers = [objects.reserve() for _ in items]
    total = len(items)
    for index, (number, item) in enumerate(zip(numbers, items, strict=True)):
        links = f"/Parent {parent} 0 R"
        if index > 0:
            links += f" /Prev {numbers[index - 1]} 0 R"
        if index + 1 < len(numbers):
            links += f" /Next {numbers[index + 1]} 0 R"
        if item.children:
            first, last, count = _bookmarks(objects, item.children, number, page_ids)
            links += f" /First {first} 0 R /Last {last} 0 R /Count {count}"
            total += count
        objects.set(number, f"<< /Title ({_escaped(item.title)}) {links} "
                            f"/Dest [{page_ids[item.page]} 0 R /XYZ 0 792 0] >>")
    return numbers[0], numbers[-1], total
