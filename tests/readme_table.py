"""The rule table, generated from the catalog: it lives in docs/rules.md (issue 22: no longer in the README).
Regenerate with ``python -m tests.rules_doc`` (the whole page) or ``python -m tests.readme_table``."""

from __future__ import annotations

from tests.rules_doc import BEGIN, DOC, END, table

README = DOC.parent.parent / "README.md"


def generated() -> str:
    return table()


def current() -> str:
    text = DOC.read_text(encoding="utf-8")
    return text[text.index(BEGIN) + len(BEGIN):text.index(END)].strip("\n") + "\n"


def update() -> None:
    text = DOC.read_text(encoding="utf-8")
    head, rest = text.split(BEGIN, 1)
    _, tail = rest.split(END, 1)
    DOC.write_text(head + BEGIN + "\n" + generated() + END + tail, encoding="utf-8")


if __name__ == "__main__":
    update()
