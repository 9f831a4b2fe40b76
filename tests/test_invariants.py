"""gengpu's output over a generated fleet and the fixture profiles, checked by tests/invariants.py: a checker
written apart from the compiler, that reads only profiles and the overlays rendered by the real kustomize."""

import shutil

import invariants
from fleetgen import write

FIXTURES = invariants.REPO / "tests" / "fixtures" / "profiles"


def test_a_fleet_and_every_fixture_hold_every_invariant(repo, run):
    shutil.rmtree(repo / "profiles")
    names = [p.stem for p in write(60, repo)]
    for fixture in sorted(FIXTURES.glob("*.yaml")):
        shutil.copy(fixture, repo / "profiles" / fixture.name)
        names.append(fixture.stem)
    result = run("build")
    assert result.exit_code == 0, result.output
    checks = invariants.Checks()
    for name in names:
        invariants.check(repo, name, checks)
    assert checks.failed == []
    assert checks.held > 650, checks.held
    print(f"{checks.held} invariants hold over {len(names)} clusters")
