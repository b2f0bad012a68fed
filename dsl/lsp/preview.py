"""The story as you type: a run of the scenario being edited (its log, each line linked to the script, or its transcript), its choices, and the adventure's map as a Mermaid graph."""

# `drama lsp` answers `workspace/executeCommand` `drama.preview` with
# `preview(...)`: any editor can show it; the VS Code extension shows it in a
# webview and asks again as the writer types. The run is `drama run SCENARIO
# --seed S --lenient` over the editor's buffers, with the choices the writer
# made in the preview (`--choose`); a choice nobody made is taken by the
# seeded dice, and the preview says which option was taken and by whom.

from __future__ import annotations

import os
import re
from typing import Any, Iterable

from pygls.uris import from_fs_path

from .. import inputs
from ..errors import DramaError
from ..syntax import nodes

__all__ = ["preview", "adventure_map"]

# a line of the session log that tells an event of the script: its line number first
_LOGGED = re.compile(r"^ {0,6}(?P<line>\d+)  ")


def preview(scenario_path: str, texts: dict[str, str], *, seed: int = 0, choices: dict[str, str] | None = None,
            view: str = "log") -> dict[str, Any]:
    """The preview of one run: {"title", "scenario", "seed", "view", "lines": [{"text", "uri", "line"}],
    "choices": [{"label", "line", "options", "taken", "by"}], "map", "error"}. `line` is 0-based."""
    from ..pipeline import Program
    from ..render import render
    out: dict[str, Any] = {"scenario": from_fs_path(scenario_path), "seed": seed, "view": view, "title": "",
                           "lines": [], "choices": [], "map": "", "error": None}
    with inputs.overlay(texts):
        try:
            program = Program.compile(scenario_path)
            out["title"] = program.scenario.title
            out["map"] = adventure_map(program.script.statements)
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
    """Nodes and edges of a Mermaid flowchart, made by walking the statements."""

    def __init__(self) -> None:
        self.lines: list[str] = ["flowchart TD"]
        self.count = 0

    def node(self, text: str, shape: str = "box") -> str:
        self.count += 1
        name = f"n{self.count}"
        left, right = {"box": ("[", "]"), "choice": ("{", "}"), "drama": ("([", "])"), "file": ("[[", "]]")}[shape]
        self.lines.append(f'  {name}{left}"{_label(text)}"{right}')
        return name

    def edges(self, frontier: list[tuple[str, str | None]], to: str) -> None:
        for name, label in frontier:
            arrow = f' -- "{_label(label)}" --> ' if label else " --> "
            self.lines.append(f"  {name}{arrow}{to}")

    def walk(self, statements: Iterable[nodes.Statement], frontier: list[tuple[str, str | None]],
             file: str | None) -> list[tuple[str, str | None]]:
        for statement in statements:
            where = statement.pos.file if statement.pos else file
            if where != file and where is not None and file is not None:
                name = self.node(f"include {os.path.basename(where)}", "file")
                self.edges(frontier, name)
                frontier, file = [(name, None)], where
            if isinstance(statement, nodes.Scene):
                name = self.node(f"scene {statement.title}")
            elif isinstance(statement, nodes.DramaBegin):
                name = self.node(f"drama {statement.name}", "drama")
            elif isinstance(statement, nodes.ChoiceBlock):
                name = self.node(f"choose {statement.label.text}", "choice")
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


def adventure_map(statements: Iterable[nodes.Statement]) -> str:
    """The adventure as a Mermaid flowchart: scenes, dramatic situations, included files, choices and
    their options (an edge labelled with each option), in the order a run meets them."""
    statements = list(statements)
    graph = _Graph()
    first = statements[0].pos.file if statements and statements[0].pos else None
    start = graph.node("start", "drama")
    frontier = graph.walk(statements, [(start, None)], first)
    graph.edges(frontier, graph.node("the end", "drama"))
    return "\n".join(graph.lines) + "\n"
