"""A slice of the fuzz suite in every test run: mutated profiles and manifests never crash gengpu, and validate and
build agree on them. scripts/fuzz runs the long version."""

import pytest
import yaml
from hypothesis import HealthCheck, given, settings

from fuzz import mutator, runner, strategies

SLICE = range(0, 600)


def test_the_mutator_is_deterministic():
    assert [mutator.case(n).content for n in (0, 7, 299)] == [mutator.case(n).content for n in (0, 7, 299)]
    assert len({mutator.case(n).content for n in SLICE}) > 250  # and the cases differ


@pytest.mark.parametrize("chunk", range(0, len(SLICE), 50))
def test_mutated_inputs_are_findings_never_crashes(tmp_path, chunk, monkeypatch):
    monkeypatch.delenv("GENGPU_DEBUG", raising=False)
    failures = []
    for number in SLICE[chunk:chunk + 50]:
        work = tmp_path / str(number)
        outcome = runner.run(mutator.case(number), work)
        if outcome.crashed or outcome.disagree:
            failures.append((number, outcome.codes, outcome.internal[-300:]))
    assert failures == []


# cases scripts/fuzz found crashing, kept once fixed: 17584 (a Karpenter requirement whose key is a mapping, beside
# a GPU pod of EKS Auto Mode)
@pytest.mark.parametrize("number", [17584])
def test_the_cases_the_long_fuzz_run_found(tmp_path, number, monkeypatch):
    monkeypatch.delenv("GENGPU_DEBUG", raising=False)
    outcome = runner.run(mutator.case(number), tmp_path)
    assert (outcome.crashed, outcome.disagree, outcome.internal) == (False, False, "")


def _run(tmp_path_factory, profile):
    case = mutator.Case(0, "hypothesis", "profile", (), yaml.safe_dump(profile, sort_keys=False).encode())
    return runner.run(case, tmp_path_factory.mktemp("hyp"))


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                                                  HealthCheck.function_scoped_fixture])
@given(strategies.profiles())
def test_build_compiles_whatever_validate_lets_through(tmp_path_factory, profile):
    """Profiles of real GPUs, instance types and MIG profiles; then the same profile with every rule it breaks
    suppressed: validate and build agree, and build never crashes on what validate lets through."""
    outcome = _run(tmp_path_factory, profile)
    assert not outcome.crashed, outcome.internal
    assert not outcome.disagree, (outcome.codes, outcome.rules)
    from gengpu.checking.rules import RULES

    suppressible = [r for r in outcome.rules if r in RULES and RULES[r].check is not None]
    if suppressible:
        profile["spec"]["suppress"] = [{"rule": r, "reason": "hypothesis"} for r in suppressible]
        outcome = _run(tmp_path_factory, profile)
        assert not outcome.crashed, outcome.internal
        assert not outcome.disagree, (outcome.codes, outcome.rules)


def test_a_profile_that_text_mutations_made_a_list_is_still_mutated():
    """A text mutation can turn a profile into a YAML list; a later data mutation of it must not crash the
    fuzzer (case 4xxxx of a 3,000-case run did, and took the run down while saving the case)."""
    import random

    for seed in range(200):
        mutator._data_mutation(random.Random(seed), [{"spec": {"a": 1}}, "x"], "profile")


@pytest.mark.parametrize("chunk", range(0, 40, 20))
def test_the_other_surfaces_never_crash(tmp_path, chunk, monkeypatch):
    """import, plan, init, diff over hostile trees and refs, check over hostile snapshots, and a cache of another shape
    (tests/fuzz/surfaces.py): every command ends in 0, 1 or 2. scripts/fuzz --surfaces runs the long version."""
    from fuzz import surfaces

    monkeypatch.delenv("GENGPU_DEBUG", raising=False)
    failures = []
    for number in range(chunk, chunk + 20):
        outcome = surfaces.run(number, tmp_path / str(number))
        if outcome.crashed:
            failures.append((number, outcome.codes, outcome.internal[-500:]))
    assert failures == []
