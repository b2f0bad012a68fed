"""`drama lsp` keeping up with typing, through a real client (docs/editors.md, "How fast").

A `python -m dsl lsp` process and pygls's LanguageClient over its pipes. A
generated script of `--lines` lines (benchmarks/check_scaling.py's, for the
Emberfall cast) is opened; then `--changes` edits, `--gap` seconds apart, each
a whole new text with one line changed, and a completion request after every
third edit. Measured: the time from the last change to the diagnostics of the
last version, whether any diagnostics of an older version were published after
a newer one, and the completion times during the burst. `--edit prose` rewrites
lines of narration (which the server knows change nothing else: the check is
kept), `--edit statement` changes the dice of exchanges (a whole check each). `--source DIR` runs
the server of another checkout; `--before DIR` measures DIR's server first, then
this one, in the same run, and prints the ratios and the load average.

    python benchmarks/lsp.py [--lines 5000] [--changes 34] [--gap 0.05] [--bursts 5] [--edit prose|statement]
                             [--distinct]
                             [--source DIR] [--before DIR] [--no-preview]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

from lsprotocol import types as lsp
from pygls.lsp.client import LanguageClient
from pygls.uris import from_fs_path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "benchmarks"))
sys.path.insert(0, str(ROOT / "tests"))

from check_scaling import script  # noqa: E402
from samples import EMBERFALL_CAST, EMBERFALL_SETTING  # noqa: E402


async def burst(client, uri: str, text: str, version: int, args, published: list, rng) -> dict:
    """One burst of edits; its figures."""
    lines = text.split("\n")
    asking = []
    prose = [k for k, line in enumerate(lines) if line.startswith(">")]
    rolls = [k for k, line in enumerate(lines) if line.endswith(", roll")]
    for k in range(args.changes):
        if args.edit == "prose":              # the writer rewrites a line of narration
            at = rng.choice(prose)
            lines[at] = f"> Kara waits, and counts to {version + k}."
        else:                                 # the writer gives an exchange its dice
            at = rng.choice(rolls)
            lines[at] = lines[at].rsplit(",", 1)[0] + f", rolled {rng.randint(1, 6)}"
        version += 1
        client.text_document_did_change(lsp.DidChangeTextDocumentParams(
            lsp.VersionedTextDocumentIdentifier(uri=uri, version=version),
            [lsp.TextDocumentContentChangeWholeDocument(text="\n".join(lines))]))
        last_change = time.perf_counter()
        if k == args.changes - 1:
            break
        if k % 3 == 2:                        # asked without waiting: the burst keeps its pace
            asking.append(asyncio.ensure_future(timed(client.text_document_completion_async(lsp.CompletionParams(
                lsp.TextDocumentIdentifier(uri=uri), lsp.Position(at, 5))))))
        await asyncio.sleep(max(0.0, args.gap - (time.perf_counter() - last_change)))
    deadline = last_change + 300
    while not any(v == version for v, _ in published):
        if time.perf_counter() > deadline:
            raise SystemExit(f"no diagnostics for version {version}")
        if published and published[-1][0] is None and time.perf_counter() - published[-1][1] > 3:
            break                             # a server that publishes no versions: its last publication
        await asyncio.sleep(0.002)
    arrived = next((t for v, t in published if v == version), published[-1][1])
    completions = await asyncio.gather(*asking)
    return {"latency": arrived - last_change, "completions": completions, "version": version}


async def timed(request) -> float:
    start = time.perf_counter()
    await request
    return time.perf_counter() - start


async def measure(args, source: Path) -> dict:
    """The bursts against the server of `source`; its figures (and the preview's, when asked)."""
    folder = Path(tempfile.mkdtemp(prefix="drama-lsp-bench-"))
    (folder / "setting.yaml").write_text(EMBERFALL_SETTING)
    (folder / "cast.yaml").write_text(EMBERFALL_CAST)
    text = _text(args)
    (folder / "script.drama").write_text(text)
    (folder / "scenario.yaml").write_text("title: T\nsetting: setting.yaml\ncast: cast.yaml\nscript: script.drama\n")
    uri = from_fs_path(str(folder / "script.drama"))
    published: list[tuple[int | None, float]] = []
    client = LanguageClient("bench", "1")

    @client.feature(lsp.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
    def on(params: lsp.PublishDiagnosticsParams):
        if params.uri == uri:
            published.append((params.version, time.perf_counter()))

    await client.start_io(sys.executable, "-m", "dsl", "lsp", env=dict(os.environ, PYTHONPATH=str(source)),
                          cwd=str(source))
    await client.initialize_async(lsp.InitializeParams(capabilities=lsp.ClientCapabilities(),
                                                       root_uri=from_fs_path(str(folder))))
    client.initialized(lsp.InitializedParams())
    client.text_document_did_open(lsp.DidOpenTextDocumentParams(
        lsp.TextDocumentItem(uri=uri, language_id="drama", version=1, text=text)))
    while not published:
        await asyncio.sleep(0.01)
    start = time.perf_counter()
    await client.text_document_completion_async(lsp.CompletionParams(
        lsp.TextDocumentIdentifier(uri=uri), lsp.Position(5, 5)))
    idle = time.perf_counter() - start
    rng = random.Random(2)
    version, results = 1, []
    server = _processes(client)
    cpu = _cpu(server)
    for _ in range(args.bursts):
        results.append(await burst(client, uri, text, version, args, published, rng))
        version = results[-1]["version"]
        await asyncio.sleep(1.0)
    cpu = [b - a for a, b in zip(cpu, _cpu(server))]
    versions = [v for v, _ in published]
    out = {"latencies": [r["latency"] * 1000 for r in results],
           "completions": [c * 1000 for r in results for c in r["completions"]], "idle": idle * 1000,
           "published": len(published), "cpu": [c * 1000 / args.bursts for c in cpu],
           "stale": sum(1 for a, b in zip(versions, versions[1:]) if b is not None and a is not None and b < a)}
    if args.preview:
        out["preview"] = await preview(client, args)
    await client.shutdown_async(None)
    client.exit(None)
    await client.stop()
    return out


def _processes(client):
    """The server's process (its workers are its children), or None without psutil."""
    try:
        import psutil
    except ImportError:                       # (psutil comes with the test extra's dask)
        return None
    return psutil.Process(client._server.pid)


def _cpu(server):
    """The CPU seconds the server's own process and its worker processes have used so far (an array of
    the two; zeros without psutil)."""
    total = [0.0, 0.0]
    if server is None:
        return total
    for k, process in enumerate([server, *server.children(recursive=True)]):
        try:
            times = process.cpu_times()
        except Exception:                     # noqa: BLE001 - a process that just ended
            continue
        total[min(k, 1)] += times.user + times.system
    return total


def _figures(name: str, found: dict) -> None:
    latencies, completions = found["latencies"], found["completions"]
    print(f"{name}: diagnostics of the last version after the last change: median {statistics.median(latencies):.0f} ms,"
          f" max {max(latencies):.0f} ms; publications {found['published']}, a stale version published after a"
          f" newer one {found['stale']} times; completion during the bursts: median"
          f" {statistics.median(completions):.1f} ms, max {max(completions):.1f} ms ({len(completions)} requests;"
          f" idle {found['idle']:.1f} ms); CPU time a burst: {sum(found['cpu']):.0f} ms, the server's"
          f" process {found['cpu'][0]:.0f} ms, its workers {found['cpu'][1]:.0f} ms")
    if "preview" in found:
        times = found["preview"]
        print(f"{name}: the story preview of river-veyne after an edit: median {statistics.median(times):.0f} ms, "
              f"max {max(times):.0f} ms ({len(times)} edits)")


def check_cpu(args, source: Path) -> dict:
    """The CPU time of the checking process's check of an edited version, in a process of `source`'s
    code set up as the server's worker is (its memories on, where that code has them): after one
    edit, and after a whole burst of edits (the check that follows a burst whose checks were all
    stopped). Median of `--bursts` runs each, in ms."""
    import json
    import subprocess
    found = subprocess.run([sys.executable, __file__, "--lines", str(args.lines), "--changes", str(args.changes),
                            "--bursts", str(args.bursts), "--check-cpu-child"] + (["--distinct"] if args.distinct else []),
                           env=dict(os.environ, PYTHONPATH=str(source)), cwd=str(source), capture_output=True,
                           text=True, check=True)
    return json.loads(found.stdout.strip().split("\n")[-1])


def _check_cpu_child(args) -> None:
    import json
    # (check_scaling put this checkout first on the path and imported its `dsl`: the code measured is
    # PYTHONPATH's)
    sys.path[:] = [p for p in sys.path if p and Path(p).resolve() != ROOT]
    for name in [name for name in sys.modules if name == "dsl" or name.startswith("dsl.")]:
        del sys.modules[name]
    from dsl.lsp.analysis import check_scenario
    assert Path(sys.modules["dsl"].__file__).resolve().parent.parent == Path(os.environ["PYTHONPATH"]).resolve()
    try:
        from dsl.lsp.worker import _started
        import multiprocessing
        _started(multiprocessing.Value("q", 0), *([multiprocessing.Value("q", 0)] if _started.__code__.co_argcount > 1 else []))
    except ImportError:
        pass
    folder = Path(tempfile.mkdtemp(prefix="drama-lsp-cpu-"))
    (folder / "setting.yaml").write_text(EMBERFALL_SETTING)
    (folder / "cast.yaml").write_text(EMBERFALL_CAST)
    text = _text(args)
    (folder / "script.drama").write_text(text)
    (folder / "scenario.yaml").write_text("title: T\nsetting: setting.yaml\ncast: cast.yaml\nscript: script.drama\n")
    path, scenario = os.path.realpath(folder / "script.drama"), str(folder / "scenario.yaml")
    lines = text.split("\n")
    rolls = [k for k, line in enumerate(lines) if line.endswith(", roll")]
    rng = random.Random(2)
    check_scenario(scenario, {path: text})
    one, burst = [], []
    for _ in range(max(args.bursts, 5)):
        for times, edits in ((one, 1), (burst, args.changes)):
            for _ in range(edits):
                at = rng.choice(rolls)
                lines[at] = lines[at].rsplit(",", 1)[0] + f", rolled {rng.randint(1, 6)}"
            start = time.process_time()
            check_scenario(scenario, {path: "\n".join(lines)})
            times.append((time.process_time() - start) * 1000)
    print(json.dumps({"one": statistics.median(one), "burst": statistics.median(burst)}))


def _text(args) -> str:
    text = script(random.Random(1), args.lines)
    if args.distinct:                         # a writer's script: few lines written twice
        text = "\n".join(line.replace(".", f", {k}.") if line.startswith(">") else line
                         for k, line in enumerate(text.split("\n")))
    return text


async def main(args) -> None:
    print(f"{args.lines} lines, edits of {args.edit}, {args.bursts} bursts of {args.changes} changes"
          f" {args.gap * 1000:.0f} ms apart; load average {os.getloadavg()[0]:.2f}")
    runs = [("before", Path(args.before).resolve())] if args.before else []
    runs.append(("after" if args.before else "server", Path(args.source).resolve() if args.source else ROOT))
    found = {}
    for name, source in runs:
        print(f"{name}: the server of {source}")
        cpu = check_cpu(args, source)
        print(f"{name}: CPU of the check of an edited version in the checking process: after one edit"
              f" {cpu['one']:.0f} ms, after {args.changes} edits {cpu['burst']:.0f} ms (median)")
        found[name] = await measure(args, source)
        found[name]["check"] = cpu
        _figures(name, found[name])
    if args.before:
        before, after = found["before"], found["after"]
        print(f"CPU of a check: before/after {before['check']['one'] / after['check']['one']:.1f}x after one edit,"
              f" {before['check']['burst'] / after['check']['burst']:.1f}x after {args.changes}")
        if after["cpu"][1]:
            print(f"CPU time a burst: before/after {sum(before['cpu']) / sum(after['cpu']):.2f}x; the server's"
                  f" process {before['cpu'][0] / after['cpu'][0]:.2f}x, its workers {before['cpu'][1] / after['cpu'][1]:.2f}x")
        for what in ("latencies", "completions"):
            print(f"{what}: median before/after {statistics.median(before[what]) / statistics.median(after[what]):.1f}x,"
                  f" max {max(before[what]) / max(after[what]):.1f}x")
        if "preview" in before:
            print(f"preview: median before/after "
                  f"{statistics.median(before['preview']) / statistics.median(after['preview']):.1f}x")
    print(f"load average at the end {os.getloadavg()[0]:.2f}")


async def preview(client, args) -> None:
    """The story preview of a bundled scenario (river-veyne), asked after each of 10 edits."""
    import shutil
    folder = Path(tempfile.mkdtemp(prefix="drama-lsp-preview-"))
    shutil.copytree(ROOT / "scenarios" / "river-veyne", folder, dirs_exist_ok=True)
    path = folder / "river-veyne.drama"
    uri = from_fs_path(str(path))
    text = path.read_text()
    client.text_document_did_open(lsp.DidOpenTextDocumentParams(
        lsp.TextDocumentItem(uri=uri, language_id="drama", version=1, text=text)))
    times = []
    for k in range(10):
        edited = text.replace("Spring melt has swollen the Veyne.", f"The Veyne is {k} feet higher.")
        client.text_document_did_change(lsp.DidChangeTextDocumentParams(
            lsp.VersionedTextDocumentIdentifier(uri=uri, version=k + 2),
            [lsp.TextDocumentContentChangeWholeDocument(text=edited)]))
        start = time.perf_counter()
        found = await client.workspace_execute_command_async(lsp.ExecuteCommandParams(
            "drama.preview", [uri, {"seed": k}]))
        times.append((time.perf_counter() - start) * 1000)
        assert any(f"{k} feet higher" in line["text"] for line in found["lines"]), found.get("error")
        await asyncio.sleep(0.2)
    return times


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--lines", type=int, default=5000)
    parser.add_argument("--changes", type=int, default=34)
    parser.add_argument("--gap", type=float, default=0.05)
    parser.add_argument("--bursts", type=int, default=5)
    parser.add_argument("--edit", choices=("prose", "statement"), default="statement")
    parser.add_argument("--distinct", action="store_true",
                        help="number each line of narration: a script whose lines are not written twice")
    parser.add_argument("--source", help="the checkout whose `dsl` to run (default: this one)")
    parser.add_argument("--before", help="a checkout to measure first, in the same run (the code before a change)")
    parser.add_argument("--no-preview", dest="preview", action="store_false", help="leave the preview out")
    parser.add_argument("--check-cpu-child", action="store_true", help=argparse.SUPPRESS)
    parsed = parser.parse_args()
    if parsed.check_cpu_child:
        _check_cpu_child(parsed)
    else:
        asyncio.run(main(parsed))
