"""Positions in a large JSON file (a cluster snapshot) come from walking its text down the finding's path
(jsontext.Positions), not from parsing the whole file again into a YAML node tree, which took 14 s and 880 MB for a
5,000-node snapshot with one pending pod (issue 50). They must be the positions the YAML reading gives."""

from __future__ import annotations

import json

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gengpu.loading import jsontext
from gengpu.loading.source import load_documents

_scalars = st.one_of(st.none(), st.booleans(), st.integers(-10**6, 10**6),
                     st.floats(allow_nan=False, allow_infinity=False, width=32),
                     # (YAML also breaks lines at U+0085, U+2028 and U+2029; editors, grep and GitHub's annotations
                     # count \n only, and so does the walk)
                     st.text(st.characters(codec="utf-8", exclude_categories=("Cs",),
                                           exclude_characters="\x85\u2028\u2029"), max_size=8))
_values = st.recursive(_scalars, lambda inner: st.one_of(
    st.lists(inner, max_size=4), st.dictionaries(st.text("abc/.é", min_size=1, max_size=4), inner, max_size=4)),
    max_leaves=20)


def _paths(data, prefix=()):
    yield prefix
    if isinstance(data, dict):
        for k, v in data.items():
            yield from _paths(v, prefix + (k,))
    elif isinstance(data, list):
        for i, v in enumerate(data):
            yield from _paths(v, prefix + (i,))


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.dictionaries(st.text("kindtemsp", min_size=1, max_size=5), _values, min_size=1, max_size=4),
       st.sampled_from([None, 1, 2, 4]), st.booleans())
def test_every_path_is_where_the_yaml_reading_puts_it(data, indent, ascii_only):
    text = json.dumps(data, indent=indent, ensure_ascii=ascii_only)
    docs, findings = load_documents(text, "snap.json")
    if findings or not docs:  # (text YAML reads otherwise than JSON does: not what a snapshot is)
        return
    positions = jsontext.Positions(text)
    for path in [*_paths(data), ("nope",), (*next(iter(_paths(data))), 7)]:
        for key in (False, True):
            assert positions.position(path, key) == docs[0].position(path, key=key), (path, key)


def test_a_finding_in_a_json_snapshot_names_its_line_and_column(run, tmp_path):
    """A pending pod at the end of a snapshot written as JSON: the finding's line is the pod's, as the file reads."""
    import shutil
    import sys
    from pathlib import Path

    repo = Path(__file__).resolve().parent.parent
    sys.path.insert(0, str(repo / "tests"))
    import snapshots

    profile = repo / "profiles" / "eks-h100-mig.yaml"
    snap = snapshots.healthy(profile.read_text(), per_pool=3)
    snap["items"] += snapshots.gpu_pods(snap, 1)
    pod = json.loads(json.dumps(snap["items"][-1]))
    pod["metadata"]["name"] = "too-big"
    del pod["spec"]["nodeName"]
    resources = pod["spec"]["containers"][0]["resources"]
    resource = next(iter(resources["limits"]))
    resources["limits"][resource] = resources["requests"][resource] = 64
    pod["status"] = {"phase": "Pending", "conditions": [{"type": "PodScheduled", "status": "False",
                                                         "reason": "Unschedulable"}]}
    snap["items"].append(pod)
    text = json.dumps(snap, indent=2)
    (tmp_path / "snap.json").write_text(text)
    shutil.copy(profile, tmp_path / profile.name)
    result = run("check", profile.name, "--snapshot", "snap.json", "--output", "json", cwd=tmp_path)
    located = [(f["line"], f["column"]) for f in json.loads(result.stdout)["findings"]
               if f["rule"] == "pod-gpu-unschedulable"]
    # the pod's spec, found in the text by hand: the line after its name where its "spec" key is
    lines = text.splitlines()
    named = next(i for i, ln in enumerate(lines) if '"name": "too-big"' in ln)
    spec = next(i for i in range(named, len(lines)) if lines[i].lstrip().startswith('"spec": {'))
    assert located == [(spec + 1, lines[spec].index('"spec"') + 1)]
