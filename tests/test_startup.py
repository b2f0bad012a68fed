"""The start-up of `drama` (issue 28): what is kept in the user's cache folder is what
its source gives now, and the commands' start-up path imports nothing it must not.

No timing here (that is benchmarks/startup.py): each test fails if a cached
parser or phrase book could differ from its source, or if a command starts by
importing a library that only another command needs."""

from __future__ import annotations

import marshal
import os
import subprocess
import sys
from pathlib import Path

import pytest

from dsl.render import phrasebook
from dsl.syntax import grammar

ROOT = Path(__file__).resolve().parent.parent
SKIRMISH = ROOT / "scenarios" / "skirmish" / "scenario.yaml"


def drama(*args, cache: Path, code: str | None = None) -> subprocess.CompletedProcess:
    """`python -m dsl ARGS` (or `python -c CODE ARGS`) in a fresh process whose cache folder is `cache`."""
    env = dict(os.environ, XDG_CACHE_HOME=str(cache),
               PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    command = [sys.executable, "-c", code, *args] if code else [sys.executable, "-m", "dsl", *args]
    return subprocess.run(command, capture_output=True, text=True, encoding="utf-8", env=env, timeout=120)


# ---------------------------------------------------------------------------
# the parser: Lark's stand-alone parser of grammar/drama.lark, generated once


def _tables(lark) -> tuple:
    """A parser's analysis, its states numbered in the order they are reached from the start
    (Lark's numbering follows the order of its sets, which differs from process to process),
    its symbols by name and its rules by what they are."""
    table = lark.parser.parser.parser.parse_table

    def rule(r):
        o = r.options
        return (r.origin.name, tuple(s.name for s in r.expansion), r.order, r.alias,
                (o.keep_all_tokens, o.expand1, o.priority, o.template_source, tuple(o.empty_indices)))
    number: dict = {}
    queue: list = []

    def reach(state) -> int:
        if state not in number:
            number[state] = len(number)
            queue.append(state)
        return number[state]
    starts = {name: reach(state) for name, state in table.start_states.items()}
    rows = []
    for state in queue:                       # (grows as new states are reached)
        row = []
        for token in sorted(table.states[state]):
            _, target = table.states[state][token]
            row.append((token, "shift", reach(target)) if isinstance(target, int) else (token, "reduce", rule(target)))
        rows.append(row)
    assert len(number) == len(table.states)   # every state is reached
    ends = {name: number[state] for name, state in table.end_states.items()}
    terminals = sorted((t.name, t.pattern.type, t.pattern.value, tuple(t.pattern.flags), t.priority)
                       for t in lark.terminals)
    return starts, rows, ends, terminals, sorted(lark.lexer_conf.ignore), sorted(map(rule, lark.rules))


def _module_of(code):
    """The module of a cached parser's code, executed apart from the one the parser uses."""
    name = "stand_alone_under_test"
    module = type(sys)(name)
    sys.modules[name] = module
    try:
        exec(code, module.__dict__)
    finally:
        del sys.modules[name]
    return module


def test_the_cached_parser_is_what_lark_generates_from_the_grammar_now(tmp_path):
    """The parser `drama` keeps is Lark's stand-alone parser of grammar/drama.lark: the same
    code as the generator writes now, and the same tables as Lark makes of the grammar."""
    from lark import Lark
    first = drama("check", str(SKIRMISH), cache=tmp_path)
    assert first.returncode == 0, first.stderr
    entries = list((tmp_path / "drama").glob("parser.*.marshal"))
    assert len(entries) == 1
    _, made_from, (source, code) = marshal.loads(entries[0].read_bytes())
    text = (ROOT / "grammar" / "drama.lark").read_text(encoding="utf-8")
    assert made_from.endswith("\n" + text) and grammar.grammar_text() == text
    assert source.split("\nDATA = (")[0] == grammar.generate(text).split("\nDATA = (")[0]
    assert "Lark_StandAlone" in source and "import pickle" not in source and "import logging" not in source
    assert code == compile(source, code.co_filename, "exec")
    assert _tables(_module_of(code).Lark_StandAlone()) == _tables(Lark(text, cache=False, **grammar._OPTIONS))
    # a second start reads the entry (it is not made again) and checks the same
    before = entries[0].stat().st_ino          # (an entry made again is a new file, renamed over it)
    again = drama("check", str(SKIRMISH), cache=tmp_path)
    assert (again.returncode, again.stdout, again.stderr) == (0, first.stdout, first.stderr)
    assert entries[0].stat().st_ino == before


def test_a_cached_parser_of_another_grammar_is_never_used(tmp_path):
    """An entry that holds another grammar's parser (under this grammar's name) is made again."""
    drama("check", str(SKIRMISH), cache=tmp_path)
    entry, = (tmp_path / "drama").glob("parser.*.marshal")
    version, made_from, _ = marshal.loads(entry.read_bytes())
    other = made_from.replace("scene", "scena")
    entry.write_bytes(marshal.dumps((version, other, ("raise SystemExit(3)", compile("raise SystemExit(3)", "x", "exec")))))
    for kept in (tmp_path / "drama").glob("script-*.marshal"):     # (so that the script is parsed again)
        kept.unlink()
    done = drama("check", str(SKIRMISH), cache=tmp_path)
    assert done.returncode == 0, done.stderr
    assert marshal.loads(entry.read_bytes())[1] == made_from


def test_without_a_cache_folder_the_parser_is_generated_each_time(tmp_path):
    unwritable = tmp_path / "file"
    unwritable.write_text("not a folder")
    done = drama("check", str(SKIRMISH), cache=unwritable)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip().endswith(": ok")


def test_the_bundled_parser_is_what_lark_generates_from_the_grammar_now():
    """grammar/drama.standalone.txt, shipped in the wheel, is the grammar's parser as Lark's
    generator writes it now (`python -m dsl.syntax.grammar` writes it again after an edit)."""
    from lark import Lark
    text = (ROOT / "grammar" / "drama.lark").read_text(encoding="utf-8")
    source = grammar.bundled(text)
    assert source is not None, "the grammar changed: run python -m dsl.syntax.grammar"
    assert source.split("\nDATA = (")[0] == grammar.generate(text).split("\nDATA = (")[0]
    code = compile(source, "bundled", "exec")
    assert _tables(_module_of(code).Lark_StandAlone()) == _tables(Lark(text, cache=False, **grammar._OPTIONS))
    assert grammar.bundled(text + "\n// another grammar\n") is None


BLOCK_LARK = """
import sys
class NoLark:
    def find_spec(self, name, path=None, target=None):
        if name == "lark" or name.startswith("lark."):
            raise ModuleNotFoundError("No module named 'lark'", name="lark")
sys.meta_path.insert(0, NoLark())
sys.argv[0] = "drama"
from dsl.cli import main
main()
"""


def test_a_fresh_install_runs_without_lark(tmp_path):
    """Nothing cached and no Lark to import: the bundled parser serves (the check of the sample)."""
    done = drama("run", str(SKIRMISH), "--format", "json", cache=tmp_path / "empty", code=BLOCK_LARK)
    assert done.returncode == 0, done.stderr
    assert done.stdout == drama("run", str(SKIRMISH), "--format", "json", cache=tmp_path / "other").stdout


def test_the_parse_errors_are_the_parsers_own_classes():
    """A syntax error comes out as Lark's stand-alone classes, which parse.py catches (an E001, not a traceback)."""
    from dsl.errors import DramaError
    from dsl.syntax import parse
    with pytest.raises(DramaError) as caught:
        parse("Kara -> -> Orm\n", "bad.drama")
    assert caught.value.code == "E001"
    assert issubclass(grammar.UnexpectedToken, grammar.UnexpectedInput)
    assert grammar.UnexpectedInput.__module__ == grammar.MODULE


def _scripts() -> list[str]:
    """Every script of the repository's scenarios and tests, and each with a slip in every line."""
    texts = [path.read_text(encoding="utf-8") for folder in ("scenarios", "tests")
             for path in sorted((ROOT / folder).rglob("*.drama"))]
    slips = []
    for text in texts[:20]:
        lines = text.split("\n")
        for index in range(0, len(lines), 3):
            slips.append("\n".join(lines[:index] + [lines[index] + " -> \u00a7 ==", *lines[index + 1:]]))
    return texts + slips


def _read_all(lark, texts) -> list:
    """What a parser makes of each text: its tree (the tokens' types, text and places) or its error."""
    out = []
    for text in texts:
        try:
            out.append(repr(lark.parse("\n" + text + "\n")))
        except grammar.UnexpectedInput as error:
            out.append((type(error).__name__, error.line, error.column, sorted(getattr(error, "expected", ()) or ()),
                        sorted(getattr(error, "allowed", ()) or ())))
    return out


def test_the_scanners_find_the_tokens_lark_s_own_find():
    """grammar._Scanner (each terminal's pattern compiled once, tried in order) reads every script
    of the repository, and a slip in each line of twenty of them, as Lark's Scanner (one
    alternation of the terminals a state accepts) does: the same trees, the same errors."""
    module = grammar.standalone()
    texts = _scripts()
    assert len(texts) > 100
    ours = _read_all(module.Lark_StandAlone(), texts)
    module.Scanner = module.LarkScanner               # (a scanner is built when a lexer first reads)
    try:
        theirs = _read_all(module.Lark_StandAlone(), texts)
    finally:
        module.Scanner = grammar._Scanner
    assert ours == theirs
    assert sum(isinstance(result, tuple) for result in ours) > 50       # the slips are errors


# ---------------------------------------------------------------------------
# a scenario's catalogue, read once for its bytes


def test_a_catalogue_read_from_the_cache_gives_the_same_checks_and_transcript(tmp_path):
    unwritable = tmp_path / "file"
    unwritable.write_text("not a folder")
    runs = [(drama("check", str(SKIRMISH), "--lang", "fr", cache=cache),
             drama("run", str(SKIRMISH), "--as", "transcript", "--lang", "fr", cache=cache))
            for cache in (unwritable, tmp_path, tmp_path)]
    shown = [[(done.returncode, done.stdout, done.stderr) for done in pair] for pair in runs]
    assert shown[0] == shown[1] == shown[2]
    entry, = (tmp_path / "drama").glob("catalogue-*.marshal")
    raw = (SKIRMISH.parent / "locale" / "fr.po").read_bytes()
    assert marshal.loads(entry.read_bytes())[1] == raw


def test_a_catalogue_that_cannot_be_read_is_an_error_every_time(tmp_path):
    """E127 is never kept: the same error at each check."""
    import shutil
    scenario = tmp_path / "skirmish"
    shutil.copytree(SKIRMISH.parent, scenario)
    po = scenario / "locale" / "fr.po"
    po.write_text(po.read_text(encoding="utf-8") + '\nmsgid "unclosed\n', encoding="utf-8")
    cache = tmp_path / "cache"
    runs = [drama("check", str(scenario / "scenario.yaml"), cache=cache) for _ in range(2)]
    assert runs[0].returncode == runs[1].returncode == 1
    assert "E127" in runs[0].stderr and runs[0].stderr == runs[1].stderr
    assert not list((cache / "drama").glob("catalogue-*.marshal"))


# ---------------------------------------------------------------------------
# the bundled phrase books, read from the cache while their text is the same


def _told(lang: str, cache: Path) -> str:
    done = drama("run", str(SKIRMISH), "--as", "transcript", "--lang", lang, cache=cache)
    assert done.returncode == 0, done.stderr
    return done.stdout


@pytest.mark.parametrize("lang", phrasebook.available())
def test_a_bundled_phrase_book_from_the_cache_tells_what_its_yaml_says(lang, tmp_path):
    from ruamel.yaml import YAML
    unwritable = tmp_path / "file"
    unwritable.write_text("not a folder")
    without = _told(lang, unwritable)                 # every book read from its YAML
    first = _told(lang, tmp_path)                     # read from the YAML, and kept
    raw = (phrasebook.PHRASES / f"{lang}.yaml").read_text(encoding="utf-8")
    entry, = (tmp_path / "drama").glob(f"phrases-{lang}-*.marshal")
    kept = marshal.loads(entry.read_bytes())
    assert kept[1] == raw and kept[2] == YAML(typ="safe", pure=True).load(raw)      # (version, text, data)
    assert _told(lang, tmp_path) == first == without  # read from the cache: the same bytes


def test_a_bundled_phrase_book_is_read_again_when_its_text_changes(tmp_path):
    """An entry is used only for the very text it was read from: a book whose text
    is not the entry's (under the same name) is read from its YAML."""
    first = _told("en", tmp_path)
    entry, = (tmp_path / "drama").glob("phrases-en-*.marshal")
    kept = marshal.loads(entry.read_bytes())
    stale = dict(kept[2], phrases={outcome: "Stale." for outcome in kept[2]["phrases"]})
    entry.write_bytes(marshal.dumps((kept[0], kept[1] + "# edited\n", stale)))
    assert _told("en", tmp_path) == first
    assert marshal.loads(entry.read_bytes())[1] == kept[1]        # made again from the YAML


# ---------------------------------------------------------------------------
# the built-in templates, compiled once and kept


@pytest.mark.parametrize("args", [["--as", "transcript"], ["--format", "md"], ["--as", "transcript", "--lang", "fr"]],
                         ids=["transcript", "md", "transcript-fr"])
def test_a_kept_template_renders_the_bytes_a_fresh_compile_does(args, tmp_path):
    unwritable = tmp_path / "file"
    unwritable.write_text("not a folder")
    runs = [drama("run", str(SKIRMISH), *args, cache=cache) for cache in (unwritable, tmp_path, tmp_path)]
    assert all(done.returncode == 0 for done in runs), [done.stderr for done in runs]
    assert runs[0].stdout == runs[1].stdout == runs[2].stdout      # compiled; compiled and kept; read back
    assert list((tmp_path / "drama").glob("template-*.marshal"))


def test_a_kept_template_is_used_only_for_what_it_was_compiled_for(tmp_path):
    """An entry names the template, the escaping, the phrase book and the package's code it was
    compiled with: one holding another key (under the same name) is compiled again."""
    told = drama("run", str(SKIRMISH), "--format", "md", cache=tmp_path).stdout
    for entry in (tmp_path / "drama").glob("template-*.marshal"):
        bucket, key, code = marshal.loads(entry.read_bytes())
        entry.write_bytes(marshal.dumps((bucket, key + " edited", b"not Jinja's bytecode")))
    assert drama("run", str(SKIRMISH), "--format", "md", cache=tmp_path).stdout == told
    assert all(marshal.loads(entry.read_bytes())[2] != b"not Jinja's bytecode"
               for entry in (tmp_path / "drama").glob("template-*.marshal"))


def test_the_cache_folder_keeps_the_entries_used_lately_within_its_bounds(tmp_path, monkeypatch):
    """At most PER_KIND entries of a kind (the newest by last use) and MAX_BYTES in all."""
    from dsl import user_cache
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    folder = tmp_path / "drama"
    made = [user_cache.kept("entry", f"source {number}", lambda: number) for number in range(200)]
    assert made == list(range(200))
    assert len(list(folder.glob("entry-*.marshal"))) == user_cache.PER_KIND
    # the entry used lately stays, however long ago it was made: the oldest other goes
    user_cache.kept("other", "first", lambda: "first")
    for number in range(user_cache.PER_KIND - 1):
        user_cache.kept("other", f"later {number}", lambda: number)
    for age, entry in enumerate(sorted(folder.glob("other-*.marshal"), key=lambda p: p.stat().st_mtime_ns)):
        os.utime(entry, ns=(10**9 + age, 10**9 + age))  # made long ago, in this order
    assert user_cache.kept("other", "first", lambda: "again") == "first"      # used now
    user_cache.kept("other", "one more", lambda: "one more")                 # one past the bound
    assert user_cache.kept("other", "first", lambda: "again") == "first"
    assert user_cache.kept("other", "later 0", lambda: "made again") == "made again"
    monkeypatch.setattr(user_cache, "MAX_BYTES", 3000)
    user_cache.kept("big", "big", lambda: "x" * 2000)
    total = sum(entry.stat().st_size for entry in folder.glob("*.marshal"))
    assert total <= 3000 and list(folder.glob("big-*.marshal"))


@pytest.mark.parametrize("damage", ["truncated", "garbage", "empty", "other marshal", "a folder"])
def test_a_damaged_entry_of_any_kind_is_made_again_never_a_traceback(damage, tmp_path):
    """Every kind of entry (the parser, a phrase book, a catalogue, a template) damaged at
    once: the commands give the same output as with no cache, and the entries are made again."""
    unwritable = tmp_path / "file"
    unwritable.write_text("not a folder")
    cache = tmp_path / "cache"
    commands = [("check", str(SKIRMISH)), ("run", str(SKIRMISH), "--as", "transcript", "--lang", "fr")]
    expected = [drama(*args, cache=unwritable) for args in commands]
    for args in commands:
        drama(*args, cache=cache)
    entries = sorted((cache / "drama").glob("*.marshal"))
    assert {p.name.split("-")[0].split(".")[0] for p in entries} >= {"parser", "phrases", "catalogue", "template"}
    for entry in entries:
        whole = entry.read_bytes()
        entry.unlink()
        if damage == "truncated":
            entry.write_bytes(whole[: len(whole) // 2])
        elif damage == "garbage":
            entry.write_bytes(b"\x00\xff garbage " * 40)
        elif damage == "empty":
            entry.write_bytes(b"")
        elif damage == "other marshal":
            entry.write_bytes(marshal.dumps({"a": [1, 2, 3]}))
        else:
            entry.mkdir()
    for args, before in zip(commands, expected):
        done = drama(*args, cache=cache)
        assert (done.returncode, done.stdout, done.stderr) == (before.returncode, before.stdout, before.stderr)
        assert "Traceback" not in done.stderr


# ---------------------------------------------------------------------------
# what the start-up path imports

REPORT = ("import sys, atexit\n"
          "atexit.register(lambda: print(sorted(sys.modules), file=sys.stderr))\n"
          "from dsl.cli import main\nmain(sys.argv[1:])\n")
# what no start of these commands needs: the table, the language server, the cluster, the
# parser generator (Lark itself: the stand-alone parser is its own module)
NEVER = {"lark", "interegular", "prompt_toolkit", "rich", "pygls", "lsprotocol", "starlette", "uvicorn", "segno",
         "dask", "distributed", "numpy"}


def _imported(args, cache: Path) -> set[str]:
    """The modules a command has imported when it ends, and their top-level packages."""
    done = drama(*args, cache=cache, code=REPORT)
    assert done.returncode == 0, done.stderr
    names = set(eval(done.stderr.strip().splitlines()[-1]))     # noqa: S307 - our own printed list
    return names | {name.split(".")[0] for name in names}


@pytest.mark.parametrize("args", [["--version"], ["check", str(SKIRMISH)], ["run", str(SKIRMISH)]],
                         ids=["version", "check", "run"])
def test_the_start_up_path_imports_no_library_it_does_not_use(args, tmp_path):
    drama(*args, cache=tmp_path)                 # (the cache made: the parser generated once)
    imported = _imported(args, tmp_path)
    assert not imported & NEVER, imported & NEVER
    if args[0] != "run":
        assert "jinja2" not in imported          # only what renders needs Jinja
        # (the parser's logger is silent without `logging`; a catalogue kept needs no Babel to read it)
        assert not imported & {"logging", "babel.messages.pofile", "email"}, imported & {"logging", "email"}
    if args[0] == "--version":
        assert not imported & {"ruamel", "babel", "dsl.syntax"}


# what the plain session log of `drama run` (dsl/render/plain_log.py) has no use for: Jinja and
# what comes with it, the transcripts' story, narrator and phrase books, the sandbox and its
# ctypes, and an output file's tempfile (issue 28)
NOT_FOR_THE_PLAIN_LOG = {"jinja2", "markupsafe", "babel", "ctypes", "pickle", "hashlib", "tempfile",
                         "dsl.render.story", "dsl.render.narrator", "dsl.render.tell", "dsl.render.sandbox",
                         "dsl.render.context", "dsl.render.filters", "dsl.render.phrasebook", "dsl.render.french"}


@pytest.mark.parametrize("args", [[], ["--seed", "3", "--as", "log", "--format", "text", "--numbers"]],
                         ids=["default", "as-log"])
def test_drama_run_writes_its_plain_log_without_jinja(args, tmp_path):
    drama("run", str(SKIRMISH), cache=tmp_path)
    imported = _imported(["run", str(SKIRMISH), *args], tmp_path)
    assert "dsl.render.plain_log" in imported
    assert not imported & NOT_FOR_THE_PLAIN_LOG, imported & NOT_FOR_THE_PLAIN_LOG
    # the other outputs still render through Jinja
    assert "jinja2" in _imported(["run", str(SKIRMISH), "--format", "md"], tmp_path)


BLOCK_RUAMEL = ("import sys\n"
                "class Blocked:\n"
                "    def find_spec(self, name, path=None, target=None):\n"
                "        if name.split('.')[0] == 'ruamel':\n"
                "            raise ModuleNotFoundError(f'No module named {name!r}', name=name)\n"
                "sys.meta_path.insert(0, Blocked())\n"
                "sys.argv[0] = 'drama'\n"
                "from dsl.__main__ import main\nmain()\n")


def test_an_install_without_a_dependency_is_a_clean_error(tmp_path):
    """A dependency missing (an incomplete install) is one line naming it and exit 1, not a traceback."""
    done = drama("run", str(SKIRMISH), cache=tmp_path / "empty", code=BLOCK_RUAMEL)
    assert done.returncode == 1
    assert "Traceback" not in done.stderr
    assert "the module 'ruamel" in done.stderr and "pip install" in done.stderr
