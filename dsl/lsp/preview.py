"""The story as you type: a run of the scenario being edited (its log, each line linked to the script, or its transcript), its choices, and the adventure's map as a Mermaid graph."""

# `drama lsp` answers `workspace/executeCommand` `drama.preview` with
# `preview(...)`: any editor can show it; the VS Code extension shows it in a
# webview and asks again as the writer types. The run is `drama run SCENARIO
# --seed S --lenient` over the editor's buffers, with the choices the writer
# made in the preview (`--choose`); a choice nobody made is taken by the
# seeded dice, and the preview says which option was taken and by whom.

from __future__ import annotations

import html
import os
import re
from typing import Any, Iterable

from pygls.uris import from_fs_path

from .. import inputs
from ..errors import DramaError
from ..syntax import nodes

__all__ = ["preview", "adventure_map", "warm"]

# a line of the session log that tells an event of the script: its line number first
_LOGGED = re.compile(r"^ {0,6}(?P<line>\d+)  ")


def warm() -> None:
    """The first job of the previews' process, given as the server starts: what a preview imports
    (the pipeline, the renderer, Jinja), and a preview of the bundled skirmish in each view, so that
    the built-in templates are compiled and the writer's first preview does not wait for them (it
    took 470 to 830 ms under load, the next ones 20 to 30)."""
    from ..pipeline import Program  # noqa: F401
    from ..render import render  # noqa: F401
    import jinja2.sandbox  # noqa: F401
    skirmish = os.path.join(os.path.dirname(os.path.dirname(__file__)), "examples", "skirmish", "scenario.yaml")
    if os.path.exists(skirmish):
        for view in ("log", "transcript"):
            preview(skirmish, {}, 0, {}, view)


def preview(scenario_path: str, texts: dict[str, str], seed: int = 0, choices: dict[str, str] | None = None,
            view: str = "log") -> dict[str, Any]:
    """The preview of one run: {"title", "scenario", "seed", "view", "lines": [{"text", "uri", "line"}],
    "choices": [{"label", "line", "options", "taken", "by"}], "map" (Mermaid), "map_svg", "error"}.
    `line` is 0-based."""
    from ..pipeline import Program
    from ..render import render
    out: dict[str, Any] = {"scenario": from_fs_path(scenario_path), "seed": seed, "view": view, "title": "",
                           "lines": [], "choices": [], "map": "", "error": None}
    with inputs.overlay(texts):
        try:
            program = Program.compile(scenario_path)
            out["title"] = program.scenario.title
            out["map"] = adventure_map(program.script.statements)
            out["map_svg"] = adventure_map(program.script.statements, "svg")
            events = program.run(seed=seed, lenient=True, choices=dict(choices or {}))
        except DramaError as error:
            out["error"] = error.format() if hasattr(error, "format") else str(error)
            out["error_line"] = error.position.line - 1 if error.position else None
            out["error_uri"] = from_fs_path(error.position.file) if error.position else None
            return out
        text = render(events, "transcript" if view == "transcript" else "log", "text")
    script = program.scenario.script
    uri = from_fs_path(script.file)
    for line in text.split("\n"):
        logged = _LOGGED.match(line) if view != "transcript" else None
        out["lines"].append({"text": line, "uri": uri if logged else None,
                             "line": int(logged["line"]) - 1 if logged else None})
    for event in events:
        if event["type"] == "choice":
            out["choices"].append({
                "label": event["choice"], "line": (event.get("line") or 1) - 1,
                "uri": from_fs_path(os.path.abspath(event["file"])) if event.get("file") else uri,
                "options": [o["label"] for o in event["options"] if o.get("available", True)],
                "taken": event.get("taken"), "by": event.get("by")})
    return out


# ---------------------------------------------------------------- the map

def _label(text: str) -> str:
    return text.replace('"', "#quot;").replace("\n", " ")


class _Graph:
    """Nodes and edges of the map, made by walking the statements; written as Mermaid or SVG."""

    def __init__(self) -> None:
        self.nodes: list[tuple[str, str, str, int | None]] = []      # (id, text, shape, line)
        self.arrows: list[tuple[str, str, str | None]] = []          # (from, to, label)

    def node(self, text: str, shape: str = "box", line: int | None = None) -> str:
        name = f"n{len(self.nodes) + 1}"
        self.nodes.append((name, text, shape, line))
        return name

    def edges(self, frontier: list[tuple[str, str | None]], to: str) -> None:
        self.arrows += [(name, to, label) for name, label in frontier]

    def mermaid(self) -> str:
        out = ["flowchart TD"]
        for name, text, shape, _line in self.nodes:
            left, right = {"box": ("[", "]"), "choice": ("{", "}"), "drama": ("([", "])"), "file": ("[[", "]]")}[shape]
            out.append(f'  {name}{left}"{_label(text)}"{right}')
        for start, end, label in self.arrows:
            arrow = f' -- "{_label(label)}" --> ' if label else " --> "
            out.append(f"  {start}{arrow}{end}")
        return "\n".join(out) + "\n"

    def svg(self) -> str:
        """A plain drawing: each node on the row of its longest way from the start, edges as lines."""
        rank = {self.nodes[0][0]: 0} if self.nodes else {}
        for _ in range(len(self.nodes)):                 # the map has no cycle: this settles
            for start, end, _label_ in self.arrows:
                if start in rank and rank.get(end, -1) < rank[start] + 1:
                    rank[end] = rank[start] + 1
        rows: dict[int, list[str]] = {}
        for name, *_ in self.nodes:
            rows.setdefault(rank.get(name, 0), []).append(name)
        width, height, gap_x, gap_y = 190, 34, 30, 46
        place = {name: (20 + k * (width + gap_x), 20 + r * (height + gap_y))
                 for r, names in rows.items() for k, name in enumerate(names)}
        wide = max((len(names) for names in rows.values()), default=1) * (width + gap_x) + 20
        tall = (max(rows, default=0) + 1) * (height + gap_y) + 20
        out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{wide}" height="{tall}" font-size="12" '
               'font-family="sans-serif">']
        for start, end, label in self.arrows:
            (x1, y1), (x2, y2) = place[start], place[end]
            a, b = (x1 + width / 2, y1 + height), (x2 + width / 2, y2)
            out.append(f'<line x1="{a[0]}" y1="{a[1]}" x2="{b[0]}" y2="{b[1]}" stroke="currentColor"/>')
            if label:
                out.append(f'<text x="{(a[0] + b[0]) / 2 + 4}" y="{(a[1] + b[1]) / 2}" fill="currentColor">'
                           f'{html.escape(label)}</text>')
        for name, text, shape, line in self.nodes:
            x, y = place[name]
            rounded = {"box": 2, "choice": 0, "drama": 16, "file": 6}[shape]
            dashed = ' stroke-dasharray="4 2"' if shape == "choice" else ""
            at = "" if line is None else line
            out.append(f'<g data-line="{at}"><rect x="{x}" y="{y}" width="{width}" height="{height}" '
                       f'rx="{rounded}" fill="none" stroke="currentColor"{dashed}/>'
                       f'<text x="{x + 8}" y="{y + 21}" fill="currentColor">{html.escape(text[:30])}</text></g>')
        out.append("</svg>")
        return "\n".join(out) + "\n"

    def walk(self, statements: Iterable[nodes.Statement], frontier: list[tuple[str, str | None]],
             file: str | None) -> list[tuple[str, str | None]]:
        for statement in statements:
            where = statement.pos.file if statement.pos else file
            if where != file and where is not None and file is not None:
                name = self.node(f"include {os.path.basename(where)}", "file")
                self.edges(frontier, name)
                frontier, file = [(name, None)], where
            if isinstance(statement, nodes.Scene):
                name = self.node(f"scene {statement.title}", "box", statement.pos.line - 1)
            elif isinstance(statement, nodes.DramaBegin):
                name = self.node(f"drama {statement.name}", "drama", statement.pos.line - 1)
            elif isinstance(statement, nodes.ChoiceBlock):
                name = self.node(f"choose {statement.label.text}", "choice", statement.pos.line - 1)
                self.edges(frontier, name)
                after: list[tuple[str, str | None]] = []
                for option in statement.options:
                    after += self.walk(option.body, [(name, option.label.text)], file)
                frontier = after
                continue
            elif isinstance(statement, nodes.IfBlock):
                after = []
                for arm in statement.arms:
                    after += self.walk(arm.body, frontier, file)
                if statement.arms[-1].condition is not None:     # no `else`: the way past it
                    after += frontier
                frontier = list(dict.fromkeys(after))
                continue
            elif isinstance(statement, nodes.Loop):
                frontier = list(dict.fromkeys(frontier + self.walk(statement.body, frontier, file)))
                continue
            else:
                continue
            self.edges(frontier, name)
            frontier = [(name, None)]
        return frontier


def _graph(statements: Iterable[nodes.Statement]) -> _Graph:
    statements = list(statements)
    graph = _Graph()
    first = statements[0].pos.file if statements and statements[0].pos else None
    start = graph.node("start", "drama")
    frontier = graph.walk(statements, [(start, None)], first)
    graph.edges(frontier, graph.node("the end", "drama"))
    return graph


def adventure_map(statements: Iterable[nodes.Statement], form: str = "mermaid") -> str:
    """The adventure as a Mermaid flowchart (or an SVG drawing of it): scenes, dramatic situations,
    included files, choices and their options (an edge labelled with each option), in the order a
    run meets them."""
    graph = _graph(statements)
    return graph.svg() if form == "svg" else graph.mermaid()
