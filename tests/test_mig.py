"""MIG geometry against NVIDIA's published profile tables and placement rules."""

import json

import pytest

from gengpu import catalog, mig

# NVIDIA MIG User Guide "Supported MIG Profiles" (and vGPU type references for H100 94GB, GH200, GB200):
# profile -> (compute slices, memory slices, instances per GPU). Transcribed independently of gpus.yaml.
NVIDIA = {
    "A30-24GB": {"1g.6gb": (1, 1, 4), "1g.6gb+me": (1, 1, 1), "2g.12gb": (2, 2, 2), "2g.12gb+me": (2, 2, 1),
                 "4g.24gb": (4, 4, 1)},
    "A100-40GB": {"1g.5gb": (1, 1, 7), "1g.5gb+me": (1, 1, 1), "1g.10gb": (1, 2, 4), "2g.10gb": (2, 2, 3),
                  "3g.20gb": (3, 4, 2), "4g.20gb": (4, 4, 1), "7g.40gb": (7, 8, 1)},
    "A100-80GB": {"1g.10gb": (1, 1, 7), "1g.10gb+me": (1, 1, 1), "1g.20gb": (1, 2, 4), "2g.20gb": (2, 2, 3),
                  "3g.40gb": (3, 4, 2), "4g.40gb": (4, 4, 1), "7g.80gb": (7, 8, 1)},
    "H100-80GB": {"1g.10gb": (1, 1, 7), "1g.10gb+me": (1, 1, 1), "1g.20gb": (1, 2, 4), "2g.20gb": (2, 2, 3),
                  "3g.40gb": (3, 4, 2), "4g.40gb": (4, 4, 1), "7g.80gb": (7, 8, 1)},
    "H100-94GB": {"1g.12gb": (1, 1, 7), "1g.12gb+me": (1, 1, 1), "1g.24gb": (1, 2, 4), "2g.24gb": (2, 2, 3),
                  "3g.47gb": (3, 4, 2), "4g.47gb": (4, 4, 1), "7g.94gb": (7, 8, 1)},
    "H200-141GB": {"1g.18gb": (1, 1, 7), "1g.18gb+me": (1, 1, 1), "1g.35gb": (1, 2, 4), "2g.35gb": (2, 2, 3),
                   "3g.71gb": (3, 4, 2), "4g.71gb": (4, 4, 1), "7g.141gb": (7, 8, 1)},
    "GH200": {"1g.12gb": (1, 1, 7), "1g.12gb+me": (1, 1, 1), "1g.24gb": (1, 2, 4), "2g.24gb": (2, 2, 3),
              "3g.48gb": (3, 4, 2), "4g.48gb": (4, 4, 1), "7g.96gb": (7, 8, 1)},
    "B200-180GB": {"1g.23gb": (1, 1, 7), "1g.23gb+me": (1, 1, 1), "1g.45gb": (1, 2, 4), "2g.45gb": (2, 2, 3),
                   "3g.90gb": (3, 4, 2), "4g.90gb": (4, 4, 1), "7g.180gb": (7, 8, 1)},
    "GB200": {"1g.23gb": (1, 1, 7), "1g.23gb+me": (1, 1, 1), "1g.47gb": (1, 2, 4), "2g.47gb": (2, 2, 3),
              "3g.93gb": (3, 4, 2), "4g.93gb": (4, 4, 1), "7g.186gb": (7, 8, 1)},
    # GH200 144G, B300, GB300: instance counts of the all-<profile> configs in NVIDIA's default MIG config
    # (mig-parted config-default.yaml v0.15.0), memory slices as on every 7-slice GPU.
    "GH200-144GB": {"1g.18gb": (1, 1, 7), "1g.18gb+me": (1, 1, 1), "1g.36gb": (1, 2, 4), "2g.36gb": (2, 2, 3),
                    "3g.72gb": (3, 4, 2), "4g.72gb": (4, 4, 1), "7g.144gb": (7, 8, 1)},
    "B300": {"1g.34gb": (1, 1, 7), "1g.34gb+me": (1, 1, 1), "1g.67gb": (1, 2, 4), "2g.67gb": (2, 2, 3),
             "3g.135gb": (3, 4, 2), "4g.135gb": (4, 4, 1), "7g.269gb": (7, 8, 1)},
    "GB300": {"1g.35gb": (1, 1, 7), "1g.35gb+me": (1, 1, 1), "1g.70gb": (1, 2, 4), "2g.70gb": (2, 2, 3),
              "3g.139gb": (3, 4, 2), "4g.139gb": (4, 4, 1), "7g.278gb": (7, 8, 1)},
    "RTX-PRO-6000": {"1g.24gb": (1, 1, 4), "1g.24gb+me": (1, 1, 1), "1g.24gb+gfx": (1, 1, 4),
                     "1g.24gb+me.all": (1, 1, 1), "1g.24gb-me": (1, 1, 4), "2g.48gb": (2, 2, 2),
                     "2g.48gb+gfx": (2, 2, 2), "2g.48gb+me.all": (2, 2, 1), "2g.48gb-me": (2, 2, 2),
                     "4g.96gb": (4, 4, 1), "4g.96gb+gfx": (4, 4, 1)},
}
PROFILES = [(gpu, p) for gpu, table in NVIDIA.items() for p in table]


def test_catalog_lists_exactly_nvidias_mig_gpus_and_profiles():
    assert sorted(mig.mig_gpus()) == sorted(NVIDIA)
    for gpu, table in NVIDIA.items():
        ours = {p: (s["compute"], s["memory"], s["max"]) for p, s in mig.profiles(gpu).items()}
        assert ours == table, gpu


@pytest.mark.parametrize("gpu,profile", PROFILES, ids=[f"{g}:{p}" for g, p in PROFILES])
def test_each_profile_fits_its_maximum_and_not_one_more(gpu, profile):
    maximum = NVIDIA[gpu][profile][2]
    assert mig.check_layout(gpu, {profile: maximum}).valid
    verdict = mig.check_layout(gpu, {profile: maximum + 1})
    assert not verdict.valid
    assert verdict.reasons == [f"{maximum + 1} x {profile} exceeds the maximum of {maximum} on {gpu}"]


FITS = [
    ("A100-40GB", {"3g.20gb": 1, "2g.10gb": 1, "1g.5gb": 2}),  # the guide's 3-2-1-1
    ("A100-40GB", {"2g.10gb": 1, "1g.5gb": 5}),  # 2-1-1-1-1-1
    ("A100-40GB", {"4g.20gb": 1, "3g.20gb": 1}),
    ("A100-40GB", {"3g.20gb": 2}),
    ("A100-40GB", {"1g.10gb": 4}),  # four double-memory 1g fill all eight memory slices
    ("A100-40GB", {"1g.10gb": 3, "1g.5gb": 2}),
    ("A100-40GB", {"4g.20gb": 1, "2g.10gb": 1, "1g.5gb": 1}),
    ("H100-80GB", {"3g.40gb": 1, "2g.20gb": 1, "1g.10gb": 1, "1g.10gb+me": 1}),
    ("H200-141GB", {"1g.18gb": 2, "2g.35gb": 1, "3g.71gb": 1}),
    ("A100-40GB", {"2g.10gb": 3, "1g.10gb": 1}),
    ("A30-24GB", {"2g.12gb": 1, "1g.6gb": 2}),
    ("RTX-PRO-6000", {"2g.48gb": 1, "1g.24gb+gfx": 2}),
]
DOES_NOT_FIT = [
    ("A100-40GB", {"1g.10gb": 4, "1g.5gb": 1}, "memory"),
    ("A100-40GB", {"3g.20gb": 2, "1g.5gb": 1}, "memory"),
    ("A100-40GB", {"4g.20gb": 1, "2g.10gb": 2}, "compute"),
    ("A100-40GB", {"7g.40gb": 1, "1g.5gb": 1}, "compute"),
    ("A100-40GB", {"3g.20gb": 1, "1g.10gb": 3}, "memory"),
    ("H200-141GB", {"1g.35gb": 2, "2g.35gb": 1, "3g.71gb": 1}, "memory"),
    ("H100-80GB", {"4g.40gb": 1, "3g.40gb": 1, "1g.10gb": 1}, "compute"),
    ("A30-24GB", {"2g.12gb": 2, "1g.6gb": 1}, "compute"),
    ("RTX-PRO-6000", {"4g.96gb": 1, "1g.24gb": 1}, "compute"),
]


@pytest.mark.parametrize("gpu,layout", FITS, ids=[f"{g}:{'+'.join(l)}" for g, l in FITS])
def test_mixed_layouts_that_fit(gpu, layout):
    verdict = mig.check_layout(gpu, layout)
    assert verdict.valid, verdict.reasons
    spans = sorted((p.start, p.start + p.size) for p in verdict.placement)
    assert all(a_end <= b_start for (_, a_end), (b_start, _) in zip(spans, spans[1:]))
    table = mig.profiles(gpu)
    for p in verdict.placement:
        assert p.start in table[p.profile]["starts"] and p.size == table[p.profile]["memory"]
    assert sorted(p.profile for p in verdict.placement) == sorted(n for n, c in layout.items() for _ in range(c))


@pytest.mark.parametrize("gpu,layout,why", DOES_NOT_FIT, ids=[f"{g}:{'+'.join(l)}" for g, l, _ in DOES_NOT_FIT])
def test_mixed_layouts_that_do_not_fit(gpu, layout, why):
    verdict = mig.check_layout(gpu, layout)
    assert not verdict.valid
    assert why in verdict.reasons[0]


def test_a_gpu_without_mig_and_a_foreign_profile():
    assert mig.check_layout("T4", {"1g.5gb": 1}).reasons == ["T4 does not support MIG"]
    reason = mig.check_layout("A100-80GB", {"1g.5gb": 1}).reasons[0]
    assert reason == ("profile 1g.5gb does not exist on A100-80GB; it has 1g.10gb, 1g.10gb+me, 1g.20gb, 2g.20gb, "
                      "3g.40gb, 4g.40gb, 7g.80gb")


@pytest.mark.parametrize("gpu", sorted(NVIDIA))
def test_maximal_layouts_are_valid_and_cannot_grow(gpu):
    layouts = mig.maximal_layouts(gpu)
    assert layouts
    table = mig.profiles(gpu)
    for layout in layouts:
        assert mig.check_layout(gpu, layout).valid
        for name in table:
            bigger = {**layout, name: layout.get(name, 0) + 1}
            assert not mig.check_layout(gpu, bigger).valid, (layout, name)
    for name, spec in table.items():
        if spec["compute"] == catalog.gpus()[gpu]["mig"]["slices"]["compute"]:
            assert {name: 1} in layouts  # a whole-GPU instance is maximal on its own


def test_maximal_layouts_of_the_a100_40gb():
    layouts = mig.maximal_layouts("A100-40GB")
    for expected in ({"7g.40gb": 1}, {"4g.20gb": 1, "3g.20gb": 1}, {"3g.20gb": 2}, {"1g.5gb": 7},
                     {"1g.10gb": 4}, {"3g.20gb": 1, "2g.10gb": 1, "1g.5gb": 2}):
        assert expected in layouts
    assert {"3g.20gb": 1} not in layouts
    assert len(layouts) == len({json.dumps(l, sort_keys=True) for l in layouts})


def test_maximal_layouts_come_largest_instances_first():
    """`gengpu mig layouts` lists the layouts with the most of the largest instances first: by memory slices, then
    compute slices (4g.20gb before 3g.20gb, 2g.10gb before 1g.10gb), then name."""
    order = ["7g.40gb", "4g.20gb", "3g.20gb", "2g.10gb", "1g.10gb", "1g.5gb", "1g.5gb+me"]
    assert sorted(mig.profiles("A100-40GB")) == sorted(order)
    vectors = [[layout.get(n, 0) for n in order] for layout in mig.maximal_layouts("A100-40GB")]
    assert vectors == sorted(vectors, reverse=True)
    assert mig.maximal_layouts("A100-40GB")[:4] == [
        {"7g.40gb": 1}, {"4g.20gb": 1, "3g.20gb": 1}, {"4g.20gb": 1, "2g.10gb": 1, "1g.10gb": 1},
        {"4g.20gb": 1, "2g.10gb": 1, "1g.5gb": 1}]


def test_presets_as_mig_manager_builds_them():
    assert mig.preset_layout("A100-40GB", "all-balanced") == {"1g.5gb": 2, "2g.10gb": 1, "3g.20gb": 1}
    assert mig.preset_layout("H100-80GB", "all-balanced") == {"1g.10gb": 2, "2g.20gb": 1, "3g.40gb": 1}
    assert mig.preset_layout("A30-24GB", "all-balanced") == {"1g.6gb": 2, "2g.12gb": 1}
    assert mig.preset_layout("H100-80GB", "all-1g.10gb.me") == {"1g.10gb+me": 1}
    assert mig.preset_layout("RTX-PRO-6000", "all-1g.24gb-me") == {"1g.24gb-me": 4}
    assert mig.preset_layout("T4", "all-balanced") is None


def test_mig_check_cli_draws_the_slot_map(run):
    result = run("mig", "check", "--gpu", "nvidia-tesla-a100", "3g.20gb=1", "2g.10gb=1", "1g.5gb=1")
    assert result.exit_code == 0
    assert result.output == (
        "A100-40GB: valid\n"
        "slice  0         1         2         3         4         5         6         7\n"
        "       |3g.20gb                                |2g.10gb            |1g.5gb   |free     |\n")


def test_mig_check_cli_json_and_exit_codes(run):
    result = run("mig", "check", "--gpu", "a100-40gb", "1g.10gb=3", "1g.5gb=2", "--output", "json")
    assert result.exit_code == 0
    assert json.loads(result.output) == {"gpu": "A100-40GB", "valid": True, "reasons": [], "placement": [
        {"profile": "1g.10gb", "start": 0, "size": 2}, {"profile": "1g.10gb", "start": 2, "size": 2},
        {"profile": "1g.5gb", "start": 4, "size": 1}, {"profile": "1g.5gb", "start": 5, "size": 1},
        {"profile": "1g.10gb", "start": 6, "size": 2}]}
    bad = run("mig", "check", "--gpu", "L4", "1g.5gb=1", "--output", "json")
    assert bad.exit_code == 1
    assert json.loads(bad.output)["reasons"] == ["L4 does not support MIG"]
    assert run("mig", "check", "--gpu", "A999", "1g.5gb=1").exit_code == 2
    malformed = run("mig", "check", "--gpu", "A100-40GB", "1g.5gb")
    assert malformed.exit_code == 2
    assert malformed.output == "gengpu: error: '1g.5gb' is not PROFILE=COUNT (for example 1g.10gb=2)\n"


def test_mig_layouts_cli(run):
    result = run("mig", "layouts", "A30")
    assert result.exit_code == 0
    lines = result.output.splitlines()
    assert lines[0] == "4g.24gb=1"
    assert lines[-1] == "9 maximal layouts for A30-24GB."
    assert run("mig", "layouts", "T4").exit_code == 1


def test_verdicts_name_the_gpu_the_profile_and_the_exact_problem():
    """Whole verdicts, not just valid/invalid: what the rules and `gengpu mig check` print comes from here."""
    V = mig.Verdict
    assert mig.profiles("T4") == {} and mig.profiles("T4") is not None
    assert mig.check_layout("T4", {"1g.5gb": 1}) == V("T4", False, ((None, "T4 does not support MIG"),))
    assert mig.check_layout("A100-40GB", {"1g.5gb": 8, "9g.1gb": 1}) == V("A100-40GB", False, (
        ("1g.5gb", "8 x 1g.5gb exceeds the maximum of 7 on A100-40GB"),
        ("9g.1gb", "profile 9g.1gb does not exist on A100-40GB; it has 1g.5gb, 1g.5gb+me, 1g.10gb, 2g.10gb, "
                   "3g.20gb, 4g.20gb, 7g.40gb")))
    assert mig.check_layout("A100-40GB", {"7g.40gb": 1}).problems == ()
    assert mig.check_layout("A100-40GB", {"4g.20gb": 1, "3g.20gb": 1, "1g.5gb": 1}) == V("A100-40GB", False, (
        (None, "the layout needs 8 compute slices; A100-40GB has 7"),))
    # 6 compute slices, but 3 x 2 + 2 + 1 = 9 memory slices on a GPU with 8
    assert mig.check_layout("A100-40GB", {"1g.10gb": 3, "2g.10gb": 1, "1g.5gb": 1}) == V("A100-40GB", False, (
        (None, "the instances cannot be placed on A100-40GB's 8 memory slices without overlap (they need 9, on "
               "their allowed start slots)"),))
    # exactly the compute slices a GPU has is fine; largest instances are placed first
    verdict = mig.check_layout("A100-40GB", {"1g.5gb": 1, "2g.10gb": 1, "4g.20gb": 1})
    assert verdict == V("A100-40GB", True, (), (
        mig.Placement("4g.20gb", 0, 4), mig.Placement("2g.10gb", 4, 2), mig.Placement("1g.5gb", 6, 1)))
    assert verdict.reasons == []


def test_presets_name_no_profile_the_gpu_lacks():
    assert mig.preset_layout("A100-40GB", "all-1g.5gb") == {"1g.5gb": 7}
    assert mig.preset_layout("A100-40GB", "all-1g.5gb.me") == {"1g.5gb+me": 1}
    assert mig.preset_layout("A100-40GB", "all-9g.1gb") is None


def test_slot_map_draws_free_slices_before_between_and_after_instances():
    verdict = mig.Verdict("A100-40GB", True, (), (mig.Placement("2g.10gb", 2, 2), mig.Placement("1g.5gb", 6, 1)))
    assert mig.slot_map(verdict) == (
        "slice  0         1         2         3         4         5         6         7\n"
        "       |free     |free     |2g.10gb            |free     |free     |1g.5gb   |free     |")


def test_maximal_layouts_use_all_compute_or_memory_they_can():
    """No maximal A100 40GB layout leaves room for the smallest instance (1g.5gb: one compute, one memory slice);
    a layout whose memory slices are all taken is maximal with compute slices to spare, and one that is not is not."""
    for layout in mig.maximal_layouts("A100-40GB"):
        assert not mig.check_layout("A100-40GB", {**layout, "1g.5gb": layout.get("1g.5gb", 0) + 1}).valid
    layouts = mig.maximal_layouts("A100-40GB")
    assert {"1g.10gb": 4} in layouts  # 8 of 8 memory slices, 4 of 7 compute slices
    assert {"1g.10gb": 3, "1g.5gb": 1} not in layouts and {"1g.10gb": 3, "1g.5gb": 2} in layouts
