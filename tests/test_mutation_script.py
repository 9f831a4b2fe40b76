"""scripts/mutation's own reading of mutmut's results (the mutation run stays out of CI; its reading does not)."""

from __future__ import annotations

import importlib.machinery
import importlib.util
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parent.parent / "scripts" / "mutation"


@pytest.fixture(scope="module")
def mutation():
    loader = importlib.machinery.SourceFileLoader("gengpu_mutation_script", str(SCRIPT))
    module = importlib.util.module_from_spec(importlib.util.spec_from_loader(loader.name, loader))
    loader.exec_module(module)
    return module


def _meta(codes: dict) -> str:
    """A module's results as mutmut 3.8.1 writes them (mutmut/mutation/data.py save())."""
    return json.dumps({"exit_code_by_key": codes, "hash_by_function_name": {"x_f": "abc"},
                       "type_check_error_by_key": {}, "durations_by_key": {k: 0.5 for k in codes},
                       "estimated_durations_by_key": {k: 0.7 for k in codes}}, indent=4)


def test_results_cut_by_a_stopped_run_are_read_as_far_as_they_are_whole(mutation, tmp_path, capsys):
    """A run stopped while mutmut rewrote a module's results (a kill at --minutes) leaves the file cut at a write's
    boundary: the exit codes, which come first, are still read, and the file is written back whole for the next run
    (mutmut refuses to load a cut one)."""
    codes = {f"gengpu.live.tables.x_pod__mutmut_{n}": code for n, code in enumerate([1, 0, None, 1, 36], 1)}
    text = _meta(codes)
    meta = tmp_path / "tables.py.meta"
    meta.write_text(text[:text.index('"estimated_durations_by_key"') + 60])  # cut inside the last section
    data = mutation.read_meta(meta)
    assert data["exit_code_by_key"] == codes and data["hash_by_function_name"] == {"x_f": "abc"}
    assert data["estimated_durations_by_key"] == {}
    assert json.loads(meta.read_text()) == data
    assert "was cut by a stopped run; read 5 of its results" in capsys.readouterr().err
    # a whole file is read as it is, and left alone
    meta.write_text(text)
    assert mutation.read_meta(meta) == json.loads(text) and meta.read_text() == text
    # cut inside the exit codes: nothing of them is whole
    meta.write_text(text[:40])
    assert mutation.read_meta(meta)["exit_code_by_key"] == {}


@pytest.mark.parametrize("ignores_term", [False, True])
def test_a_stopped_run_leaves_no_process_of_its_group_behind(mutation, ignores_term):
    """What a mutant started (a test's API server, in mutmut's process group) is gone when the stop returns: one that
    takes its time over SIGTERM is waited for, one that ignores it is killed after the grace period."""
    child = ("import signal, subprocess, sys, time\n"
             + ("signal.signal(signal.SIGTERM, signal.SIG_IGN)\n" if ignores_term else
                "signal.signal(signal.SIGTERM, lambda *a: (time.sleep(0.5), sys.exit(0)))\n")
             + "print(flush=True)\ntime.sleep(60)\n")
    parent = f"import subprocess, sys, time\nsubprocess.Popen([sys.executable, '-c', {child!r}])\ntime.sleep(60)\n"
    proc = subprocess.Popen([sys.executable, "-c", parent], start_new_session=True)
    time.sleep(1.0)  # (the grandchild started)
    mutation.stop_group(proc, grace=2.0)
    with pytest.raises(ProcessLookupError):
        os.killpg(proc.pid, 0)


def test_the_temporary_folders_of_mutants_that_are_gone_are_removed_and_no_others(mutation, tmp_path):
    gone = subprocess.Popen([sys.executable, "-c", ""])
    gone.wait()
    for pid in (gone.pid, os.getpid()):
        (tmp_path / f"gengpu-mutant-{pid}" / "etcd").mkdir(parents=True)
    (tmp_path / "gengpu-mutant-x").mkdir()
    (tmp_path / "other").mkdir()
    mutation.remove_stale_temps(tmp_path)
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted([f"gengpu-mutant-{os.getpid()}", "gengpu-mutant-x", "other"])


def test_a_mutants_tests_run_by_module_cheapest_first_each_in_the_files_order():
    """mutmut hands a mutant its tests in a set's order; tests/conftest.py runs them a module at a time, cheapest
    module first by the call times mutmut recorded (a module's API server starts once, a killed mutant stops early),
    and each module's tests in the order they are written, a parametrized test's cases in its table's order (some
    tests use an object a test above made in the API server)."""
    from types import SimpleNamespace

    from conftest import by_cost

    slow, fast = "test_slow", "test_fast"

    def item(module, test, line, *indices):
        case = SimpleNamespace(nodeid=f"mutants/tests/{module}.py::{test}", location=(f"tests/{module}.py", line, test))
        if indices:
            case.callspec = SimpleNamespace(indices=dict(zip("xyz", indices)))
        return case

    items = [item(slow, "a[2]", 10, 2), item(fast, "b", 30), item(slow, "c", 5), item(fast, "d", 20),
             item(slow, "a[0]", 10, 0), item(slow, "e", 40), item(slow, "a[1-0]", 10, 1, 0)]
    seconds = {"tests/test_slow.py::a[2]": 9.0, "tests/test_slow.py::c": 0.1, "tests/test_slow.py::e": 2.0,
               "tests/test_fast.py::b": 3.0, "tests/test_fast.py::d": 0.5}
    assert [i.nodeid.rpartition("::")[2] for i in by_cost(items, seconds)] == [
        "d", "b", "c", "a[0]", "a[1-0]", "a[2]", "e"]
    # a test mutmut has no time for costs nothing, and still runs with its module
    del seconds["tests/test_slow.py::a[2]"]
    assert [i.nodeid.rpartition("::")[2] for i in by_cost(items, seconds)] == [
        "c", "a[0]", "a[1-0]", "a[2]", "e", "d", "b"]


def test_the_kill_rate_of_a_sample_comes_with_its_wilson_interval(mutation):
    """Against the published 95% Wilson intervals (Newcombe 1998, Statistics in Medicine 17:857, table II: 0/10 is
    0 to 0.2775) and one worked by hand (97/100 is 0.9155 to 0.9897)."""
    assert [round(x, 4) for x in mutation.wilson(0, 10)] == [0.0, 0.2775]
    assert [round(x, 4) for x in mutation.wilson(97, 100)] == [0.9155, 0.9897]
    assert [round(x, 4) for x in mutation.wilson(10, 10)] == [0.7225, 1.0]
    assert mutation.wilson(0, 0) == (0.0, 1.0)


def test_a_sample_is_drawn_from_all_of_each_groups_mutants_and_reported_with_its_interval(mutation, tmp_path, capsys):
    meta = tmp_path / "mutants" / "gengpu"
    meta.mkdir(parents=True)
    sizing = {f"gengpu.sizing.x_recommend__mutmut_{n}": code for n, code in enumerate([1] * 8 + [0, None], 1)}
    (meta / "sizing.py.meta").write_text(_meta(sizing))
    (meta / "baseline.py.meta").write_text(_meta({"gengpu.baseline.x_load__mutmut_1": 1,
                                                  "gengpu.baseline.x_load__mutmut_2": None}))
    drawn = mutation.sample(tmp_path, ["rightsize", "baseline"], 4, seed=0)
    # each group's own count: all of baseline's two, four of rightsize's ten
    assert drawn[:2] == ["gengpu.baseline.x_load__mutmut_1", "gengpu.baseline.x_load__mutmut_2"]
    assert len(drawn) == 6 and set(drawn[2:]) < set(sizing)
    assert drawn == mutation.sample(tmp_path, ["rightsize", "baseline"], 4, seed=0)  # the seed fixes the draw
    assert any(mutation.sample(tmp_path, ["rightsize"], 4, seed=s) != drawn[2:] for s in range(1, 5))
    assert sorted(mutation.sample(tmp_path, ["rightsize"], 50, seed=0)) == sorted(sizing)  # fewer than asked: all
    assert mutation.sample(tmp_path, ["flux"], 4, seed=0) is None  # nothing generated to draw from
    # a sample is checked afresh: its mutants are forgotten before the run, the others keep their results
    mutation.forget(tmp_path, {"gengpu.sizing.x_recommend__mutmut_1", "gengpu.baseline.x_load__mutmut_1"})
    assert dict(mutation.results(tmp_path, ["rightsize", "baseline"])) == {
        **{k: "killed" for k in sizing}, "gengpu.sizing.x_recommend__mutmut_1": "not checked",
        "gengpu.sizing.x_recommend__mutmut_9": "survived", "gengpu.sizing.x_recommend__mutmut_10": "not checked",
        "gengpu.baseline.x_load__mutmut_1": "not checked", "gengpu.baseline.x_load__mutmut_2": "not checked"}
    (meta / "sizing.py.meta").write_text(_meta(sizing))
    mutation.report_sample(tmp_path, ["rightsize"], sorted(sizing), seed=7)
    assert capsys.readouterr().out == (
        "sample of rightsize (seed 7): 10 of 10 mutants, 9 checked: 8 killed, 0 timed out, 1 survived, "
        "0 not reached, 1 not checked yet; kill rate 88.9% (95% interval 56.5-98.0%)\n")
