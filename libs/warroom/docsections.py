"""Named sections of a Markdown document, so several scripts can share one file.

Each benchmark owns the text between `<!-- bench:NAME -->` and
`<!-- /bench:NAME -->` in docs/benchmarks.md and rewrites only that.
"""

from __future__ import annotations

from pathlib import Path


def markers(name: str) -> tuple[str, str]:
    """The opening and closing markers of a section."""
    return f"<!-- bench:{name} -->", f"<!-- /bench:{name} -->"


def read_section(doc: Path, name: str) -> str | None:
    """The current body of a section, or None when the document lacks it."""
    start, end = markers(name)
    text = doc.read_text() if doc.exists() else ""
    if start not in text or end not in text:
        return None
    return text.partition(start)[2].partition(end)[0].strip("\n")


def write_section(doc: Path, name: str, body: str, append: bool = False) -> None:
    """Replace a section's body (or add the section at the end); `append` keeps the old body first."""
    start, end = markers(name)
    text = doc.read_text() if doc.exists() else "# Benchmarks\n"
    previous = read_section(doc, name)
    if append and previous:
        body = f"{previous}\n\n{body}"
    block = f"{start}\n{body.strip(chr(10))}\n{end}"
    if previous is not None:
        head, _, rest = text.partition(start)
        text = head + block + rest.partition(end)[2]
    else:
        text = text.rstrip() + "\n\n" + block + "\n"
    doc.write_text(text)
