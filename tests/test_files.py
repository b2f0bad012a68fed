"""Files and processes under faults (issue 18): no output over an input, a failing
command changes no file, workers end with their parent, and every bad input
(NUL, lone surrogate, a device, a merge bomb, a broken event log, a template
that raises) is a clean error. Each test runs the `drama` command and compares
every file around, byte for byte, before and after."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import ROOT, drama, make_scenario, write

INCLUDING = ('scene "Camp"\ninclude "scenes/camp.drama"\n'
             'drama "Duel" with Kara, Bren\nKara fireball -> Bren, rolled 3\n'
             'Bren defends with Strength, rolled 2\nend drama\n')
CAMP = "> The fire crackles.\n"


def snapshot(folder: Path) -> dict[str, bytes]:
    """Every file under `folder` (hidden temporary files too), by relative path."""
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def adventure(folder: Path) -> Path:
    """A scenario whose script includes scenes/camp.drama."""
    path = make_scenario(folder, INCLUDING)
    write(folder, "scenes/camp.drama", CAMP)
    return path


def unchanged(folder: Path, *args: str, code: int = 1, error: str = "E501") -> str:
    """Run `drama ARGS` in `folder`: it fails with `error`, and no file changes."""
    before = snapshot(folder)
    outcome = drama(*args)
    assert outcome.code == code, outcome.output
    assert f"error[{error}]" in outcome.stderr, outcome.stderr
    assert snapshot(folder) == before
    return outcome.stderr


# ---------------------------------------------------------------------------
# 1. no output over a file the run reads, included scripts and templates too

@pytest.mark.parametrize("option", ["-o", "--record"])
def test_1_run_refuses_to_write_over_an_included_script(in_tmp, option):
    adventure(in_tmp)
    stderr = unchanged(in_tmp, "run", "scenario.yaml", option, "scenes/camp.drama")
    assert "refusing to write over the input file scenes/camp.drama" in stderr


def test_1_simulate_refuses_to_write_over_an_included_script(in_tmp):
    adventure(in_tmp)
    unchanged(in_tmp, "simulate", "scenario.yaml", "--runs", "5", "-o", "scenes/camp.drama")


def test_1_links_to_an_input_are_refused(in_tmp):
    adventure(in_tmp)
    os.symlink("scenes/camp.drama", in_tmp / "soft.drama")
    os.link(in_tmp / "scenes" / "camp.drama", in_tmp / "hard.drama")
    for name in ("soft.drama", "hard.drama", "./scenes/../scenes/camp.drama"):
        unchanged(in_tmp, "run", "scenario.yaml", "-o", name)


def test_1_a_template_and_every_file_of_a_template_folder_are_inputs(in_tmp):
    adventure(in_tmp)
    write(in_tmp, "mine.md.j2", "# {{ title }}\n")
    write(in_tmp, "mine/log.md.j2", "# {{ title }}\n")
    write(in_tmp, "mine/unused.j2", "never read\n")
    unchanged(in_tmp, "run", "scenario.yaml", "--format", "md", "--template", "mine.md.j2", "-o", "mine.md.j2")
    for name in ("mine/log.md.j2", "mine/unused.j2"):
        unchanged(in_tmp, "run", "scenario.yaml", "--format", "md", "--template", "mine", "-o", name)


def test_1_render_refuses_to_write_over_its_event_log(in_tmp):
    adventure(in_tmp)
    assert drama("run", "scenario.yaml", "--format", "json", "-o", "events.jsonl").code == 0
    unchanged(in_tmp, "render", "events.jsonl", "-o", "events.jsonl")


def test_1_a_file_that_is_not_an_input_is_written_whole(in_tmp):
    adventure(in_tmp)
    outcome = drama("run", "scenario.yaml", "-o", "log.txt", "--record", "played.drama")
    assert outcome.code == 0, outcome.output
    assert outcome.stdout == ""
    assert (in_tmp / "log.txt").read_text() == drama("run", "scenario.yaml").stdout
    assert "The fire crackles." in (in_tmp / "played.drama").read_text()
    assert not [p for p in in_tmp.iterdir() if p.name.endswith(".tmp")]


# ---------------------------------------------------------------------------
# 2. a failing command changes no file: every output is checked first and
#    committed together

def test_2_record_is_not_written_when_o_names_a_missing_folder(in_tmp):
    adventure(in_tmp)
    write(in_tmp, "old.drama", "# an earlier record\n")
    stderr = unchanged(in_tmp, "run", "scenario.yaml", "--record", "old.drama", "-o", "no-such-folder/out.txt")
    assert "the folder no-such-folder does not exist" in stderr


def test_2_nothing_is_written_when_the_run_fails(in_tmp):
    adventure(in_tmp)
    write(in_tmp, "old.drama", "# an earlier record\n")
    write(in_tmp, "old.txt", "an earlier log\n")
    (in_tmp / "scenes" / "camp.drama").write_text("Kara fireball -> Nobody\n")
    unchanged(in_tmp, "run", "scenario.yaml", "--record", "old.drama", "-o", "old.txt", error="E201")


def test_2_two_outputs_may_not_name_one_file(in_tmp):
    adventure(in_tmp)
    write(in_tmp, "out.txt", "before\n")
    os.symlink("out.txt", in_tmp / "link.txt")
    stderr = unchanged(in_tmp, "run", "scenario.yaml", "--record", "link.txt", "-o", "out.txt")
    assert "two outputs name the same file" in stderr


# ---------------------------------------------------------------------------
# 3. workers of `drama simulate` end with their parent, however it ends

def _children(pid: int) -> set[int]:
    found: set[int] = set()
    for task in Path(f"/proc/{pid}/task").iterdir():
        text = (task / "children").read_text()
        found.update(int(word) for word in text.split())
    return found


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state not in ("Z", "X")       # a zombie has ended; only its parent's wait is missing


@pytest.mark.skipif(not Path("/proc/self/task").exists(), reason="reads the process tree in /proc (Linux)")
def test_3_simulate_workers_end_when_the_parent_is_killed(in_tmp):
    # a run long enough (99,001 statements, within the limit of a run) that a worker's
    # chunk of runs lasts far longer than the test waits: a worker may not end only
    # because its chunk did
    make_scenario(in_tmp, "repeat 9000 times\n" + "> The wind howls.\n" * 10 + "end\n" + 'drama "Duel" with Kara, Bren\n'
                  "Kara fireball -> Bren, roll\nBren defends with Strength, roll\nend drama\n")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])))
    parent = subprocess.Popen([sys.executable, "-m", "dsl", "simulate", "scenario.yaml", "--runs", "100000000",
                               "--jobs", "2", "-o", "report.txt"], cwd=in_tmp, env=env,
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        workers: set[int] = set()
        deadline = time.monotonic() + 60
        while len(workers) < 2 and time.monotonic() < deadline and parent.poll() is None:
            time.sleep(0.2)
            workers = {pid for pid in _children(parent.pid) if _alive(pid)}
        assert len(workers) >= 2, "the workers never started"
        time.sleep(0.5)                                  # in the middle of the runs
        parent.send_signal(signal.SIGKILL)
        parent.wait(10)
        deadline = time.monotonic() + 5
        while any(_alive(pid) for pid in workers) and time.monotonic() < deadline:
            time.sleep(0.1)
        left = [pid for pid in workers if _alive(pid)]
        for pid in left:                                 # not to leave them behind if the test fails
            os.kill(pid, signal.SIGKILL)
        assert not left, f"workers {left} outlived their parent"
        assert not (in_tmp / "report.txt").exists()
        assert not [p for p in in_tmp.iterdir() if p.name.startswith(".report.txt")]
    finally:
        if parent.poll() is None:
            parent.kill()


# ---------------------------------------------------------------------------
# 4-8. inputs that crashed or hung are clean errors with a position

def test_4_an_include_path_with_a_nul_byte(in_tmp):
    make_scenario(in_tmp, 'scene "A"\ninclude "camp\x00.drama"\n')
    for command in ("check", "run"):
        stderr = unchanged(in_tmp, command, "scenario.yaml", error="E521")
        assert stderr.startswith("script.drama:2:14: error[E521]: the script file holds a NUL character")
    # a line given to a program (`drama play` reads them so) is not a file: its include path is checked
    from dsl.errors import DramaError
    from dsl.pipeline import Program
    make_scenario(in_tmp, 'scene "A"\n')
    program = Program.compile(in_tmp / "scenario.yaml")
    with pytest.raises(DramaError) as refused:
        program.read('include "camp\x00.drama"\n')
    assert refused.value.code == "E521" and refused.value.position.line == 1


def test_4_a_nul_in_a_script(in_tmp):
    make_scenario(in_tmp, 'scene "A"\n> the fire\x00 crackles\n')
    stderr = unchanged(in_tmp, "check", "scenario.yaml", error="E521")
    assert stderr.startswith("script.drama:2:11: error[E521]: the script file holds a NUL character")


@pytest.mark.parametrize("escape", ["\\ud800", "\\udfff", "\\0"])
def test_5_a_title_with_a_lone_surrogate_or_nul_is_refused(in_tmp, escape):
    make_scenario(in_tmp, INCLUDING.replace('include "scenes/camp.drama"\n', ""))
    text = (in_tmp / "scenario.yaml").read_text().replace("title: Test", f'title: "Bad {escape}"')
    write(in_tmp, "scenario.yaml", text)
    stderr = unchanged(in_tmp, "check", "scenario.yaml", error="E521")
    assert stderr.startswith("scenario.yaml:1:8: error[E521]: the value holds ")
    unchanged(in_tmp, "run", "scenario.yaml", "-o", "out.txt", error="E521")


def test_5_an_output_that_cannot_be_utf8_is_refused_not_a_traceback(in_tmp):
    # a lone surrogate can come from the command line (a name that is not UTF-8)
    make_scenario(in_tmp, INCLUDING.replace('include "scenes/camp.drama"\n', ""))
    unchanged(in_tmp, "odds", "scenario.yaml", "Kara fireball -> Bren, roll # \udcff", "-o", "odds.txt")


@pytest.mark.parametrize("device", ["/dev/zero", "/dev/null", "fifo"])
def test_6_a_cast_that_is_not_a_regular_file(in_tmp, device):
    adventure(in_tmp)
    if device == "fifo":
        os.mkfifo(in_tmp / "fifo")     # no writer: a blocking open would hang
    text = (in_tmp / "scenario.yaml").read_text().replace("cast: cast.yaml", f"cast: {device}")
    write(in_tmp, "scenario.yaml", text)
    stderr = unchanged(in_tmp, "check", "scenario.yaml", error="E520")
    assert "scenario.yaml:3:7: error[E520]: the cast file" in stderr and "not a regular file" in stderr
    unchanged(in_tmp, "run", "scenario.yaml", "--cast", device, error="E520")


def test_6_a_file_over_the_size_limit(in_tmp):
    from dsl.inputs import MAX_YAML_BYTES
    adventure(in_tmp)
    write(in_tmp, "big.yaml", "#" * MAX_YAML_BYTES + "\n")
    stderr = unchanged(in_tmp, "run", "scenario.yaml", "--cast", "big.yaml", error="E520")
    assert "error[E520]: the cast file 'big.yaml' is larger than 2 MiB" in stderr


def merge_bomb(depth: int = 10, width: int = 10) -> str:
    lines = ["m0: &m0 {round: 6 seconds}"]
    for level in range(1, depth + 1):
        lines.append(f"m{level}: &m{level}\n  <<: [{', '.join([f'*m{level - 1}'] * width)}]\n  k{level}: 1")
    return "\n".join(lines) + f"\n<<: *m{depth}\n"


def test_7_a_merge_key_bomb_fails_fast(in_tmp):
    adventure(in_tmp)
    write(in_tmp, "setting.yaml", merge_bomb())
    began = time.monotonic()
    stderr = unchanged(in_tmp, "check", "scenario.yaml", error="E522")
    assert time.monotonic() - began < 10
    assert "setting.yaml:" in stderr and "more than 100,000 values" in stderr


def test_7_an_alias_bomb_in_a_list_fails_fast(in_tmp):
    adventure(in_tmp)
    lines = ["a0: &a0 [x, x, x, x, x, x, x, x, x, x]"]
    lines += [f"a{i}: &a{i} [{', '.join([f'*a{i - 1}'] * 10)}]" for i in range(1, 10)]
    write(in_tmp, "cast.yaml", (in_tmp / "cast.yaml").read_text() + "\n".join(lines) + "\n")
    unchanged(in_tmp, "check", "scenario.yaml", error="E522")


def _log_with(in_tmp: Path, extra: str) -> None:
    adventure(in_tmp)
    assert drama("run", "scenario.yaml", "--format", "json", "-o", "good.jsonl").code == 0
    lines = (in_tmp / "good.jsonl").read_text().splitlines()
    lines[1] = lines[1][:-1] + f', "extra": {extra}}}'
    write(in_tmp, "bad.jsonl", "\n".join(lines) + "\n")


@pytest.mark.parametrize("extra, message", [
    ("[" * 100_000 + "]" * 100_000, "values nested more than 32 deep"),
    ("[" * 40 + "]" * 40, "values nested more than 32 deep"),
    ("9" * 5000, "a whole number of more than 4,300 digits"),
    ('"\\ud800"', "a text of the event holds a lone surrogate (U+D800)"),
    ('"\\u0000"', "a text of the event holds a NUL character"),
    ("NaN", "not JSON"),
], ids=["deep", "40-deep", "5000-digits", "surrogate", "nul", "nan"])
def test_8_render_of_a_broken_event_log_is_e602_at_its_line(in_tmp, extra, message):
    _log_with(in_tmp, extra)
    stderr = unchanged(in_tmp, "render", "bad.jsonl", "-o", "out.txt", error="E602")
    assert stderr.startswith(f"bad.jsonl:2:1: error[E602]: {message}"), stderr[:200]


def test_8_a_long_line_is_shown_cut_around_the_caret(in_tmp):
    _log_with(in_tmp, "[" * 100_000 + "]" * 100_000)
    stderr = unchanged(in_tmp, "render", "bad.jsonl", error="E602")
    assert max(len(line) for line in stderr.splitlines()) < 200
    assert " 2 | {\"type\": " in stderr and stderr.splitlines()[1].endswith("[[[…")
    # the caret still under its column when the line is cut on both sides
    from dsl.errors import DramaError, Position
    line = "x" * 500 + "HERE" + "y" * 500
    shown = DramaError("E602", "m", position=Position("f", 1, 501, 505)).format(line + "\n").splitlines()
    assert shown[1].startswith(" 1 | …") and shown[1].endswith("…")
    assert shown[1][shown[2].index("^"):][:4] == "HERE" and shown[2].count("^") == 4


def test_8_an_event_log_that_is_a_device(in_tmp):
    stderr = unchanged(in_tmp, "render", "/dev/zero", error="E602")
    assert "not a regular file" in stderr


# ---------------------------------------------------------------------------
# 9. whatever a template raises is E601

def test_9_truncate_with_a_negative_length_is_e601(in_tmp):
    adventure(in_tmp)
    write(in_tmp, "mine.md.j2", "# {{ title | truncate(-5) }}\n")
    stderr = unchanged(in_tmp, "run", "scenario.yaml", "--format", "md", "--template", "mine.md.j2",
                       "-o", "out.md", error="E601")
    assert stderr.startswith("mine.md.j2:1:1: error[E601]: error in the template")


def test_9_a_template_that_is_a_device_is_e601(in_tmp):
    adventure(in_tmp)
    unchanged(in_tmp, "run", "scenario.yaml", "--template", "/dev/zero", error="E601")


# ---------------------------------------------------------------------------
# the property: outputs colliding with inputs, or in missing folders, change nothing

_SCENARIO_FILES = ["scenario.yaml", "setting.yaml", "cast.yaml", "script.drama", "scenes/camp.drama",
                   "./scenes/../cast.yaml", "soft-link.drama"]
# what each command reads (with --template mine.md.j2 for run and render)
_READS = {"run": _SCENARIO_FILES, "simulate": _SCENARIO_FILES, "render": ["events.jsonl", "hard-link.jsonl"]}
_BAD_PLACES = ["missing/out.txt", "missing/deeper/out.drama", "scenes"]   # (scenes is a folder)
_FREE = ["out.txt", "record.drama", "scenes/new.txt"]
_NAMES = sorted({*_SCENARIO_FILES, *_READS["render"], "mine.md.j2", *_BAD_PLACES, *_FREE})


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(command=st.sampled_from(["run", "simulate", "render"]),
       names=st.lists(st.sampled_from(_NAMES), min_size=1, max_size=2),
       template=st.booleans())
def test_property_a_failing_command_changes_no_file(tmp_path_factory, command, names, template):
    """Random outputs of `drama run` (-o and --record), `drama simulate -o` and
    `drama render -o`, among the files the command reads, links to them, folders,
    missing folders and each other: the command fails exactly when one collides,
    and then no file changes; when it succeeds only its outputs changed."""
    folder = tmp_path_factory.mktemp("collide")
    adventure(folder)
    write(folder, "mine.md.j2", "# {{ title }}\n")
    write(folder, "out.txt", "an old log\n")
    write(folder, "record.drama", "# an old record\n")
    os.symlink("scenes/camp.drama", folder / "soft-link.drama")
    assert drama("run", folder / "scenario.yaml", "--format", "json", "-o", folder / "events.jsonl").code == 0
    os.link(folder / "events.jsonl", folder / "hard-link.jsonl")
    if command == "simulate":
        template, names = False, names[:1]
        args = ["simulate", folder / "scenario.yaml", "--runs", "2", "--format", "md"]
    elif command == "render":
        names = names[:1]
        args = ["render", folder / "events.jsonl", "--format", "md"]
    else:
        args = ["run", folder / "scenario.yaml", "--format", "md"]
    if template:
        args += ["--template", folder / "mine.md.j2"]
    for flag, name in zip(["-o", "--record"], names):
        args += [flag, folder / name]
    reads = set(_READS[command]) | ({"mine.md.j2"} if template else set())
    colliding = any(name in reads or name in _BAD_PLACES for name in names) or len(set(names)) < len(names)
    before = snapshot(folder)
    outcome = drama(*args)
    if outcome.code != 0:          # E501, or a usage error for a folder (click's dir_okay=False)
        assert "error[E501]" in outcome.stderr or outcome.code == 2, outcome.stderr
        assert snapshot(folder) == before
    assert (outcome.code != 0) == colliding, (command, names, template, outcome.output)
    if outcome.code == 0:          # only the outputs changed (through a link: its target)
        written = {os.path.realpath(folder / name) for name in names}

        def others(files: dict[str, bytes]) -> dict[str, bytes]:
            return {k: v for k, v in files.items() if os.path.realpath(folder / k) not in written}
        after = snapshot(folder)
        assert others(after) == others(before)
        assert not [k for k in after if k.endswith(".tmp") or k.endswith(".old")]


def test_outputs_api_streams_and_commits_together(tmp_path):
    """The writer's API (dsl/outputs.py) as the commands use it."""
    from dsl.errors import DramaError
    from dsl.outputs import Outputs
    write(tmp_path, "a.txt", "old a\n")
    with Outputs() as out:
        stream = out.stream(tmp_path / "a.txt")
        stream.write("new ")
        out.text(tmp_path / "b.txt", "b\n")
        stream.write("a\n")
        assert (tmp_path / "a.txt").read_text() == "old a\n" and not (tmp_path / "b.txt").exists()
    assert (tmp_path / "a.txt").read_text() == "new a\n" and (tmp_path / "b.txt").read_text() == "b\n"
    with pytest.raises(RuntimeError):
        with Outputs() as out:
            out.stream(tmp_path / "a.txt").write("lost\n")
            raise RuntimeError("the command failed")
    assert (tmp_path / "a.txt").read_text() == "new a\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.txt", "b.txt"]
    with pytest.raises(DramaError) as refused:
        with Outputs() as out:
            out.text(tmp_path / "c.txt", "c\n")
            from dsl.inputs import read_text
            read_text(tmp_path / "b.txt", what="file")     # read after it was named as an output
            out.text(tmp_path / "b.txt", "over an input\n")
    assert refused.value.code == "E501"
    assert not (tmp_path / "c.txt").exists() and (tmp_path / "b.txt").read_text() == "b\n"
    assert json.dumps(sorted(p.name for p in tmp_path.iterdir())) == '["a.txt", "b.txt"]'


def test_outputs_api_undoes_the_renames_done_when_one_fails(tmp_path):
    """All or nothing: the second rename fails (its target became a folder), so
    the first file is put back as it was."""
    from dsl.errors import DramaError
    from dsl.outputs import Outputs
    write(tmp_path, "a.txt", "old a\n")
    write(tmp_path, "b.txt", "old b\n")
    with pytest.raises(DramaError) as failed:
        with Outputs() as out:
            out.text(tmp_path / "a.txt", "new a\n")
            out.text(tmp_path / "new.txt", "new\n")
            out.text(tmp_path / "b.txt", "new b\n")
            (tmp_path / "b.txt").unlink()
            write(tmp_path, "b.txt/inside", "a folder now\n")
            out.commit()
    assert failed.value.code == "E501" and "b.txt" in failed.value.message
    assert (tmp_path / "a.txt").read_text() == "old a\n"
    assert not (tmp_path / "new.txt").exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.txt", "b.txt"]


def test_devices_are_written_as_they_are_and_a_dangling_link_names_its_folder(in_tmp):
    from conftest import drama_process
    adventure(in_tmp)
    done = drama_process("run", "scenario.yaml", "-o", "/dev/stdout", "--record", "/dev/null", cwd=in_tmp)
    assert done.returncode == 0, done.stderr
    assert done.stdout == drama("run", "scenario.yaml").stdout
    os.symlink("nowhere/log.txt", in_tmp / "dangling.txt")
    stderr = unchanged(in_tmp, "run", "scenario.yaml", "-o", "dangling.txt")
    assert "cannot write dangling.txt: the folder nowhere does not exist" in stderr
