"""The figures right-sizing reads of each device, case by case (the rightsize group, issue 51): what counts as an
activity figure, a memory figure that can be, a MIG instance's activity as a share of its GPU (DCGM's profiling
metrics are per GPU instance: a 3g instance of an A100, 3 of its 7 compute slices, at 50% is 3/14 of the GPU), and
how much of the window a pool's GPUs were there."""

from __future__ import annotations

import math

import pytest

from gengpu import sizing
from gengpu.metrics.usage import Device, Figures

NAN, INF = float("nan"), float("inf")


def _device(mig: str = "", node: str = "n", gpu: str = "0", **figures) -> Device:
    return Device(node, gpu, f"GPU-{node}-{gpu}", mig, "NVIDIA A100-SXM4-40GB", figures=Figures(**figures))


@pytest.mark.parametrize("figures, activity", [
    ({"active_p95": 0.3}, 0.3), ({"active_p95": 0.0}, 0.0), ({"active_p95": 1.0}, 1.0),
    ({"util_p95": 40.0}, 0.4),  # GPU_UTIL in percent, where there is no engine activity
    ({"active_p95": 0.3, "util_p95": 90.0}, 0.3),  # the engine's figure first
    ({}, 1.0), ({"active_p95": NAN}, 1.0), ({"active_p95": -0.1}, 1.0), ({"active_p95": 1.01}, 1.0),
    ({"active_p95": INF}, 1.0),
])
def test_an_activity_that_cannot_be_counts_as_busy(figures, activity):
    assert sizing.activity(_device(**figures)) == activity


@pytest.mark.parametrize("value, ok", [
    (0.0, True), (40536.0, True), (40536 * 1.02, True), (40536 * 1.03, False), (-1.0, False), (None, False),
    (NAN, False), (INF, False),
])
def test_a_memory_figure_that_can_be(value, ok):
    assert sizing.memory_ok(value, 40536) is ok


@pytest.mark.parametrize("mig, active, share", [
    ("", 0.5, 0.5),
    ("3g.20gb", 0.5, 0.5 * 3 / 7),
    ("1g.5gb", 0.7, 0.7 / 7),
    ("7g.40gb", 0.2, 0.2),
    ("9g.99gb", 0.5, 0.5),  # a profile gengpu does not know: never below what was seen
    ("3g.20gb", None, 1.0),
    ("3g.20gb", NAN, 1.0),
])
def test_a_mig_instances_activity_is_a_share_of_its_gpu(mig, active, share):
    assert math.isclose(sizing.share("A100-40GB", _device(mig, active_p95=active)), share)


def _usage(*devices: Device) -> sizing.PoolUsage:
    return sizing.PoolUsage(None, None, None, [], list(devices), "7d", "test")


def test_how_much_of_the_window_a_pools_gpus_were_there():
    # two GPUs: one there all the window (100 steps), one half of it; a MIG instance counts for its GPU
    usage = _usage(_device(present=100.0), _device("1g.5gb", gpu="1", present=50.0),
                   _device("1g.5gb", gpu="1", present=40.0))
    assert usage.presence() == {("n", "GPU-n-0"): 100.0, ("n", "GPU-n-1"): 50.0}
    assert sizing._run_share(usage) == 0.75
    assert sizing._run_share(_usage(_device(present=100.0), _device(gpu="1", present=100.0))) == 1.0
    # no coverage figure, or none that can be: no share
    assert sizing._run_share(_usage(_device())) is None
    assert sizing._run_share(_usage(_device(present=NAN))) is None
    assert sizing._run_share(_usage(_device(present=0.0))) is None
    assert sizing._run_share(_usage()) is None


@pytest.mark.parametrize("q, values, expected", [
    # Prometheus's quantile_over_time (promql/quantile.go): rank q x (n - 1), linear between the nearest ranks
    (0.95, [float(v) for v in range(1, 11)], 9.55),
    (0.5, [4.0, 1.0, 3.0, 2.0], 2.5),  # (sorted first)
    (0.0, [3.0, 1.0, 2.0], 1.0),
    (1.0, [3.0, 1.0, 2.0], 3.0),
    (0.95, [7.0], 7.0),
])
def test_a_recordings_quantile_is_prometheus_quantile_over_time(q, values, expected):
    from gengpu.metrics import recorded

    assert math.isclose(recorded.quantile(q, values), expected)


FB = "# TYPE DCGM_FI_DEV_FB_USED gauge\n"


@pytest.mark.parametrize("text, line, message", [
    (FB + 'DCGM_FI_DEV_FB_USED{gpu="0",Hostname="n"} 10\n# EOF\n', 2,
     "a DCGM_FI_DEV_FB_USED sample has no timestamp: a recording needs the time of every sample"),
    ("# TYPE kube_node_info gauge\nkube_node_info{node=\"n\"} 1 1764547200\n# EOF\n", 1,
     "no dcgm-exporter samples (DCGM_FI_DEV_FB_USED, DCGM_FI_DEV_FB_FREE, DCGM_FI_DEV_GPU_UTIL, "
     "DCGM_FI_PROF_GR_ENGINE_ACTIVE) in the file"),
    (FB + 'DCGM_FI_DEV_FB_USED{gpu="0",Hostname="n"} 10 1764547200\n', 1, None),  # (no # EOF: the parser's reason)
])
def test_a_recording_gengpu_cannot_read_is_one_finding_at_its_line(text, line, message):
    from gengpu.metrics import recorded

    found, findings = recorded.load(text, "gpus.om")
    assert found is None
    assert [(f.file, f.line, f.rule) for f in findings] == [("gpus.om", line, "metrics-file-invalid")]
    if message is None:
        assert findings[0].message.startswith("not OpenMetrics: ")
    else:
        assert findings[0].message == message


@pytest.mark.parametrize("text, matchers", [
    # PromQL's label matchers (prometheus/promql/parser: = != =~ !~, a double-quoted string with backslash escapes)
    ('cluster="prod"', (("cluster", "=", "prod"),)),
    ('cluster="prod",region=~"eu-.*",env!="dev",zone!~"x|y"',
     (("cluster", "=", "prod"), ("region", "=~", "eu-.*"), ("env", "!=", "dev"), ("zone", "!~", "x|y"))),
    ('pod="a\\"b"', (("pod", "=", 'a"b'),)),
    ('pod="a\\\\b"', (("pod", "=", "a\\b"),)),
    ('pod="("', (("pod", "=", "("),)),  # (a literal: only =~ and !~ are regexes)
    ('cluster="prod",', (("cluster", "=", "prod"),)),  # (a trailing comma, as PromQL allows in {...})
])
def test_match_reads_promql_label_matchers(text, matchers):
    from gengpu.metrics import usage

    assert usage.parse_match(text) == matchers


# (a trailing comma is PromQL's too: {cluster="prod",} is a selector Prometheus runs)
@pytest.mark.parametrize("text", ["", "cluster=prod", ',cluster="prod"', 'cluster="prod" region="x"', '"x"="y"'])
def test_match_that_is_not_label_matchers_is_refused_with_the_text(text):
    from gengpu.metrics import usage

    with pytest.raises(ValueError) as refused:
        usage.parse_match(text)
    assert type(refused.value) is ValueError and str(refused.value) == text


@pytest.mark.parametrize("text, named", [
    ('a="x",b=~"(a"', "b=~"),  # (the second matcher's regex, not the first's value)
    ('b!~"a(?=b)"', "b!~"),  # (no lookaround in RE2, as in Go's regexp)
    ('c=~"(a)\\\\1"', "c=~"),  # (no backreferences in RE2)
])
def test_match_with_a_regex_prometheus_refuses_names_the_matcher(text, named):
    from gengpu.metrics import usage

    with pytest.raises(usage.BadRegex) as refused:
        usage.parse_match(text)
    message = str(refused.value)
    assert message.startswith(f"the regex of {named} is not one Prometheus runs: ")
    assert message.endswith("(Prometheus's regexes are RE2: no backreferences or lookaround)")


def test_each_pod_on_a_shared_gpu_is_a_unit_of_its_own_figures_on_that_gpu():
    """shared_sizing.pods_of: a pod's unit keeps where it ran (node, GPU, UUID, MIG profile and instance, model)
    and its own memory and activity figures, not the GPU's engine activity; the pod with no name is no unit."""
    from gengpu import shared_sizing

    a = Figures(mem_peak=1000.0, mem_p95=900.0, util_mean=20.0, util_p95=40.0, active_mean=0.9, active_p95=1.0)
    b = Figures(mem_peak=3000.0, mem_p95=2500.0, util_mean=30.0, util_p95=50.0, active_mean=0.9, active_p95=1.0)
    gpu = Device("node-1", "3", "GPU-abc", "3g.20gb", "NVIDIA A100-SXM4-40GB", "2", Figures(mem_peak=4000.0),
                 {("ml", "b"): b, ("ml", "a"): a, ("ml", ""): Figures(mem_peak=5.0)})
    pods, kind = shared_sizing.pods_of([gpu])
    own = {name: Figures(mem_peak=f.mem_peak, mem_p95=f.mem_p95, util_mean=f.util_mean, util_p95=f.util_p95)
           for name, f in (("a", a), ("b", b))}
    assert pods == [Device("node-1", "3", "GPU-abc", "3g.20gb", "NVIDIA A100-SXM4-40GB", "2", own[name],
                           {("ml", name): own[name]}) for name in ("a", "b")]
    assert kind == shared_sizing.PER_PROCESS  # (two pods, 1,000 and 3,000 MiB, on a GPU at 4,000: their own)


def _shared(device: float, *peaks: float) -> Device:
    return Device("n", "0", "GPU-n-0", "", "Tesla T4", "", Figures(mem_peak=device),
                  {("ml", f"p{i}"): Figures(mem_peak=p) for i, p in enumerate(peaks)})


@pytest.mark.parametrize("units, kind", [
    # each pod's peak within 2% of its GPU's (of 1 MiB at least): copies of the GPU's figures
    ([_shared(1000.0, 980.0, 1020.0)], "copies"),  # (exactly 2% off: still copies)
    ([_shared(1000.0, 979.0, 1000.0)], "per-process"),
    ([_shared(0.5, 0.53, 0.5)], "per-process"),  # (2% of 1 MiB, not of 0.5 MiB: 0.03 off is further than 0.02)
    ([_shared(0.0, 0.0, 0.0)], "copies"),  # (the GPU held nothing either: the pods' zeros are its)
    ([_shared(1.0, 0.0, 0.0)], "zero"),  # (the GPU held 1 MiB, the pods read nothing)
    ([_shared(NAN, 10.0, 20.0)], "unknown"),  # (no GPU figure to compare with)
    ([_shared(1000.0, 400.0)], "unknown"),  # (one pod: nothing to tell)
    ([_shared(1000.0, 400.0), _shared(1000.0, 1000.0, 1000.0)], "copies"),  # (a one-pod GPU first is passed over)
    ([_shared(1000.0, 1000.0, 1000.0), _shared(1000.0, 300.0, 600.0)], "mixed"),
])
def test_what_a_shared_gpus_per_pod_series_are(units, kind):
    """shared_sizing.pods_of judges, on every GPU two or more pods share, whether the pods' series are their own
    (per-process, dcgm-exporter 4.8.2 and later), copies of the GPU's (before 4.8.2) or 0 (no hostPID)."""
    from gengpu import shared_sizing

    assert shared_sizing.pods_of(units)[1] == kind


@pytest.mark.parametrize("figures, replicas", [
    ({"mem_peak": 0.0, "active_p95": 0.0}, 8),  # idle: neither memory nor activity limits it, the cap does
    ({"mem_peak": 0.0, "active_p95": 0.2}, 4),  # 1 / (0.2 x 1.2) = 4.2: activity alone
    ({"mem_peak": 9000.0, "active_p95": 0.0}, 3),  # 40960 x 0.95 / (9000 x 1.2) = 3.6: memory alone
    ({"mem_peak": 100.0, "active_p95": 0.01}, 8),  # both allow more than the cap
    ({"mem_peak": 40000.0, "active_p95": 0.9}, 1),  # a whole GPU's work: never below one
])
def test_time_slicing_replicas_at_each_bound(figures, replicas):
    """Replicas per GPU are what memory (95% of the GPU's, with 20% headroom on the peak) and activity (its p95 with
    the same headroom) each allow, the smaller, at most 8 and at least 1; a GPU that used no memory or was never
    busy is limited by the other figure alone, not divided by zero."""
    assert sizing._replicas([_device(**figures)], 40960.0, 0.2) == replicas


def _pool(instance: str, region: str, gpus: int, gpu: str, types: list[str]):
    from gengpu.model import build_profile

    profile = build_profile({
        "apiVersion": "gengpu.dev/v1alpha1", "kind": "GPUProfile", "metadata": {"name": "p"},
        "spec": {"platform": "eks", "region": region, "kubernetesVersion": "1.33", "operator": {"version": "v26.7.0"},
                 "nodePools": [{"name": "gpu", "gpu": gpu, "gpusPerNode": gpus, "instanceTypes": [instance],
                                "capacityTypes": types, "provisioner": "karpenter", "limits": {"gpus": 16}}]}},
        "p.yaml")
    return profile, profile.node_pools[0]


# gengpu/data/prices.yaml, as its sources give them: p5.4xlarge (1 H100) in us-east-1 has an on-demand price ($6.88)
# and no spot price; p5e.48xlarge (8 H200) in us-west-2 a spot price ($19.5387) and no on-demand price.
@pytest.mark.parametrize("instance, region, gpus, gpu, types, said, price, basis", [
    # the nodes say spot, and there is no spot price: the pool is priced as its types say
    ("p5.4xlarge", "us-east-1", 1, "H100-80GB", ["spot", "on-demand"], {"a": True, "b": False}, 6.88, "on-demand"),
    ("p5.4xlarge", "us-east-1", 1, "H100-80GB", ["spot", "on-demand"], {"a": True, "b": True}, 6.88, "on-demand"),
    ("p5.4xlarge", "us-east-1", 1, "H100-80GB", ["spot"], {"a": True}, None, "spot"),
    # all spot, and no on-demand price: the spot price alone
    ("p5e.48xlarge", "us-west-2", 8, "H200-141GB", ["spot", "on-demand"], {"a": True, "b": True}, 19.5387 / 8,
     "2 of 2 node(s) spot"),
    # half spot, and no on-demand price for the other half: the pool cannot be priced at what its nodes ran
    ("p5e.48xlarge", "us-west-2", 8, "H200-141GB", ["spot", "on-demand"], {"a": True, "b": False}, None,
     "on-demand"),
    ("p5e.48xlarge", "us-west-2", 8, "H200-141GB", ["spot"], {"a": True, "b": False}, 19.5387 / 8, "spot"),
    # nodes that say nothing, or all on-demand: the pool's types
    ("p5e.48xlarge", "us-west-2", 8, "H200-141GB", ["spot"], {"a": None}, 19.5387 / 8, "spot"),
    ("p5.4xlarge", "us-east-1", 1, "H100-80GB", ["on-demand"], {"a": False, "b": None}, 6.88, "on-demand"),
])
def test_a_pool_whose_price_table_lacks_spot_or_on_demand(instance, region, gpus, gpu, types, said, price, basis):
    profile, pool = _pool(instance, region, gpus, gpu, types)
    got, why = sizing._price(profile, pool, said)
    assert why == basis
    assert got == (None if price is None else pytest.approx(price))
