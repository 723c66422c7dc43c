"""``/rules``: the game's rules in words (Art. 15 of seed 001: "cartillas que informen sobre
las instrucciones de este juego"), one printable page.

Each game ships its seed's digest (RULES.md's sections for it) beside its ``display.py``,
as ``rules_<table>.md`` in its package: a small Markdown (``#`` headings, ``-`` items,
paragraphs, ``|`` tables, ``**bold**``), drawn here without any other library.
"""

from __future__ import annotations

import html
import json
import re
from importlib import resources

from controller.core.contract import GameSpec


def rules_text(spec: GameSpec) -> str:
    """The digest of ``spec``'s seed (``rules_<name>.md`` in its display's package), or a
    line saying there is none."""
    package = spec.display.partition(":")[0].rpartition(".")[0]
    try:
        return resources.files(package).joinpath(f"rules_{spec.name}.md").read_text("utf-8")
    except (OSError, ModuleNotFoundError, ValueError):
        return f"# {spec.title}\n\nNo digest of seed {spec.seed} ships with this table.\n"


def _inline(text: str) -> str:
    text = html.escape(text)
    text = re.sub(r"\*\*(.+?)\*\*", r"<strong>\1</strong>", text)
    return re.sub(r"`(.+?)`", r"<code>\1</code>", text)


def markdown(text: str) -> str:
    """The digest's Markdown as HTML (see the module doc)."""
    out: list[str] = []
    block: list[str] = []
    kind = ""

    def close() -> None:
        nonlocal kind
        if kind == "p" and block:
            out.append(f"<p>{_inline(' '.join(block))}</p>")
        elif kind == "ul":
            out.append("<ul>" + "".join(f"<li>{_inline(i)}</li>" for i in block) + "</ul>")
        elif kind == "table":
            rows = [r for r in block if not re.fullmatch(r"[|\s:-]+", r)]
            cells = [[c.strip() for c in r.strip("|").split("|")] for r in rows]
            rows_html = []
            for i, row in enumerate(cells):
                tag = "th" if i == 0 else "td"
                rows_html.append("<tr>" + "".join(f"<{tag}>{_inline(c)}</{tag}>" for c in row)
                                 + "</tr>")
            out.append("<table>" + "".join(rows_html) + "</table>")
        block.clear()
        kind = ""

    for line in text.splitlines():
        stripped = line.strip()
        heading = re.match(r"(#{1,4})\s+(.*)", stripped)
        if not stripped or heading:
            close()
            if heading:
                level = min(len(heading.group(1)) + 1, 4)
                out.append(f"<h{level}>{_inline(heading.group(2))}</h{level}>")
            continue
        new = ("ul" if stripped.startswith("- ") else
               "table" if stripped.startswith("|") else kind if kind == "ul" else "p")
        if new != kind:
            close()
            kind = new
        if stripped.startswith("- "):
            block.append(stripped[2:])
        elif kind == "ul" and block:
            block[-1] += " " + stripped  # an item continued on the next line
        else:
            block.append(stripped)
    close()
    return "\n".join(out)


def rules_html(text: str, snapshot: str, words: dict[str, str], language: str) -> str:
    """The whole ``/rules`` page (no script: it is for reading and printing)."""
    state = json.loads(snapshot or "{}")
    title = html.escape(f"{words['rules']}: {state.get('title', '')}")
    return f"""<!doctype html>
<html lang="{language}">
<head><meta charset="utf-8"><title>{title}</title>
<link rel="stylesheet" href="/static/display.css"></head>
<body class="rules" data-page="rules">
<header><h1>{title}</h1><p class="note">{html.escape(words['rules_note'])}</p></header>
<main id="rules">{markdown(text)}</main>
</body>
</html>
"""
