"""The figures right-sizing reads of each device, case by case (the rightsize group, issue 51): what counts as an
activity figure, a memory figure that can be, a MIG instance's activity as a share of its GPU (DCGM's profiling
metrics are per GPU instance: a 3g instance of an A100, 3 of its 7 compute slices, at 50% is 3/14 of the GPU), and
how much of the window a pool's GPUs were there."""

from __future__ import annotations

import math
from pathlib import Path

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
    # a value that is no number: the parser's reason quotes it, and the finding is at its line
    (FB + 'DCGM_FI_DEV_FB_USED{gpu="0",Hostname="n"} 10 1764547200\nDCGM_FI_DEV_FB_USED{gpu="0",Hostname="n"} oops '
     '1764547260\n# EOF\n', 3, "not OpenMetrics: could not convert string to float: 'oops'"),
])
def test_a_recording_gengpu_cannot_read_is_one_finding_at_its_line(text, line, message):
    from gengpu.metrics import recorded

    found, findings = recorded.load(text, "gpus.om")
    assert found is None
    assert [(f.file, f.line, f.column, f.rule) for f in findings] == [("gpus.om", line, 1, "metrics-file-invalid")]
    if message is None:
        assert findings[0].message.startswith("not OpenMetrics: ")
    else:
        assert findings[0].message == message
    assert findings[0].fix == ("record the samples as OpenMetrics with a timestamp on every sample and a final '# EOF' "
                               "line (the format `promtool tsdb create-blocks-from openmetrics` loads), or point "
                               "--prometheus at the server")


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


# NVIDIA's A100-40GB MIG profiles as gengpu/data holds them (usable GiB, compute slices of 7, most per GPU): 1g.5gb
# 4.75 GiB x7, 1g.10gb 9.62 x4, 2g.10gb 9.62 x3, 3g.20gb 19.5 x2, 4g.20gb 19.5 x1, 7g.40gb 39.25 x1. A pod fits a
# profile when its peak memory and its activity, each with 20% headroom, fit the instance's memory and compute.
@pytest.mark.parametrize("units, choice", [
    ([(3.9, 0.1)], ("1g.5gb", 7)),
    ([(4.75 / 1.2, 0.1)], ("1g.5gb", 7)),  # exactly at the instance's memory with headroom
    ([(4.76 / 1.2, 0.1)], ("1g.10gb", 4)),  # just above it: the next size, most per GPU
    ([(3.9, 0.12)], ("2g.10gb", 3)),  # 0.12 x 1.2 is above a 1g's 1/7 of the compute
    ([(3.9, 0.1), (7.5, 0.05)], ("1g.10gb", 4)),  # every pod must fit: the biggest decides
    ([(3.9, 0.1), (9.0, 0.05)], ("3g.20gb", 2)),  # 9 x 1.2 is above a 10gb instance
    ([(20.0, 0.3)], ("7g.40gb", 1)),
    ([(19.5 / 1.2, 3 / 7 / 1.2 - 0.001)], ("3g.20gb", 2)),
    ([(33.0, 0.1)], None),  # 33 x 1.2 is above the whole GPU's 39.25
    ([(3.0, 0.9)], None),  # 0.9 x 1.2 is above a whole GPU
])
def test_the_mig_profile_that_holds_every_pod_most_times_over(units, choice):
    devices = [_device(gpu=str(k), mem_peak=gib * 1024, active_p95=active) for k, (gib, active) in enumerate(units)]
    assert sizing._mig_choice("A100-40GB", devices, 0.2) == choice


def test_a_pod_exactly_at_an_instances_share_of_the_compute_fits_it():
    """With no headroom, a pod at exactly 1/7 of an A100's compute (and within its memory) fits a 1g instance."""
    assert sizing._mig_choice("A100-40GB", [_device(mem_peak=4.75 * 1024, active_p95=1 / 7)], 0.0) == ("1g.5gb", 7)


def _limited(gpus_per_node: int, limits: dict):
    from gengpu.model import build_profile

    profile = build_profile({
        "apiVersion": "gengpu.dev/v1alpha1", "kind": "GPUProfile", "metadata": {"name": "p"},
        "spec": {"platform": "eks", "region": "us-east-1", "kubernetesVersion": "1.33",
                 "operator": {"version": "v26.7.0"},
                 "nodePools": [{"name": "gpu", "gpu": "A100-40GB", "gpusPerNode": gpus_per_node,
                                "instanceTypes": ["p4d.24xlarge"], "provisioner": "karpenter", "limits": limits}]}},
        "p.yaml")
    return profile.node_pools[0]


@pytest.mark.parametrize("per_node, limits, now, new, needed, changes", [
    # 16 GPUs of 1 pod each, now 7 pods per GPU: 3 GPUs, in whole nodes of 8
    (8, {"gpus": 16}, 1, 7, 3, [(("limits", "gpus"), 8)]),
    (8, {"gpus": 16}, 1, 3, 3, [(("limits", "gpus"), 8)]),  # ceil(16 / 3) = 6 GPUs: one node
    (8, {"gpus": 32}, 1, 3, 3, [(("limits", "gpus"), 16)]),  # ceil(32 / 3) = 11 GPUs: two nodes
    (1, {"gpus": 8}, 1, 4, 5, [(("limits", "gpus"), 5)]),  # never below the GPUs today's pods need
    (1, {"gpus": 4}, 7, 2, 1, [(("limits", "gpus"), 14)]),  # 7 instances per GPU to 2: more GPUs
    (8, {"nodes": 4}, 1, 7, 3, [(("limits", "nodes"), 1)]),
    (1, {"nodes": 10}, 1, 3, 2, [(("limits", "nodes"), 4)]),
    (8, {"nodes": 2}, 1, 2, 24, [(("limits", "nodes"), 3)]),  # 24 GPUs needed: three nodes of 8
    (8, {"nodes": 1}, 1, 8, 1, [(("limits", "nodes"), 1)]),  # never below one node
    (8, {"gpus": 16, "nodes": 2}, 1, 2, 8, [(("limits", "gpus"), 8), (("limits", "nodes"), 1)]),
    (8, {}, 1, 7, 3, []),
])
def test_limits_admit_todays_pods_on_the_packed_gpus_in_whole_nodes(per_node, limits, now, new, needed, changes):
    assert sizing._limits(_limited(per_node, limits), now, new, needed) == changes


def _holding(node: str, gpu: str, uuid: str, *pods: tuple[str, str], mig: str = "") -> Device:
    return Device(node, gpu, uuid, mig, "NVIDIA A100-SXM4-40GB", pods={pod: Figures() for pod in pods})


def test_pods_that_hold_several_gpus():
    """A pod on two GPUs of a node, or on GPUs of two nodes, holds several; two MIG instances of one GPU (its UUID)
    are one GPU; without a UUID a GPU is its index; a series without a pod name is no pod."""
    devices = [
        _holding("n1", "0", "GPU-a", ("ml", "train-0")), _holding("n1", "1", "GPU-b", ("ml", "train-0")),
        _holding("n1", "2", "GPU-c", ("ml", "infer"), mig="1g.5gb"),
        _holding("n1", "2", "GPU-c", ("ml", "infer"), mig="1g.5gb"),
        _holding("n1", "3", "", ("ml", "eval")), _holding("n1", "4", "", ("ml", "eval")),
        _holding("n2", "0", "GPU-d", ("ml", "train-0"), ("ml", "")), _holding("n3", "0", "GPU-e", ("ml", "")),
        _holding("n2", "1", "", ("ml", "solo")), _holding("n2", "1", "", ("ml", "solo")),
        # GPU 0 of two nodes, neither with a UUID: two GPUs
        _holding("n4", "0", "", ("ml", "pair")), _holding("n5", "0", "", ("ml", "pair")),
        # index 0 of one node twice, with two UUIDs (the node replaced under its name): two GPUs
        _holding("n6", "0", "GPU-f", ("ml", "again")), _holding("n6", "0", "GPU-g", ("ml", "again")),
    ]
    assert sizing._multi_gpu_pods(devices) == {"ml/again": 2, "ml/eval": 2, "ml/pair": 2, "ml/train-0": 3}
    assert sizing._multi_gpu_pods(devices[:1]) == {}


DAY = 24 * 3600


def _gpus(count: int, gib: float, active: float | None, per_node: int = 8, **pods) -> list[Device]:
    """count whole A100-40GB GPUs over a day, pod gpu-K on GPU K, each at that peak memory and p95 activity."""
    return [Device(f"node-{k // per_node}", str(k % per_node), f"GPU-{k}", "", "NVIDIA A100-SXM4-40GB",
                   figures=Figures(mem_peak=gib * 1024, active_p95=active, first=0.0, last=float(DAY)),
                   pods={("ml", pods.get(str(k), f"gpu-{k}")): Figures()}) for k in range(count)]


def _mixed(*groups: tuple[int, float, float | None]) -> list[Device]:
    """GPUs of one pool, each group (count, GiB, activity) after the one before (node and pod numbers run on)."""
    out: list[Device] = []
    for count, gib, active in groups:
        out += _gpus(len(out) + count, gib, active)[len(out):]
    return out


def _unallocated(devices: list[Device], *which: int) -> list[Device]:
    for k in which:
        devices[k].pods = {}
    return devices


def _recommend(devices: list[Device], min_hours: float = 24, sharing: dict | None = None,
               **given) -> sizing.Recommendation:
    from gengpu.model import build_profile

    profile = build_profile({
        "apiVersion": "gengpu.dev/v1alpha1", "kind": "GPUProfile", "metadata": {"name": "p"},
        "spec": {"platform": "eks", "region": "us-east-1", "kubernetesVersion": "1.33",
                 "operator": {"version": "v26.7.0"},
                 "nodePools": [{"name": "gpu", "gpu": "A100-40GB", "gpusPerNode": 8, "instanceTypes": ["p4d.24xlarge"],
                                "capacityTypes": ["on-demand"], "provisioner": "karpenter",
                                "limits": {"gpus": 16}, **({"sharing": sharing} if sharing else {})}]}}, "p.yaml")
    pool = profile.node_pools[0]
    usage = sizing.PoolUsage(profile, None, pool, sorted({d.node for d in devices}), devices, "1d", "test")
    return sizing.recommend(usage, min_hours, **given)


def test_a_pool_of_small_pods_on_whole_gpus_is_proposed_mig_in_whole_nodes():
    """16 A100s (two nodes of 8), each with one pod at 3.9 GiB and 10% activity: 7 x 1g.5gb per GPU holds the 16 pods
    on 3 GPUs, one node of 8; the limit follows (16 GPUs at 7 pods each: 3, one node); the saving is 8 GPUs at the
    pool's on-demand GPU-hour (gengpu/data/prices.yaml: p4d.24xlarge in us-east-1, 8 GPUs) for 730 hours."""
    import yaml

    rec = _recommend(_gpus(16, 3.9, 0.1))
    node_hour = yaml.safe_load((Path(sizing.__file__).parent / "data" / "prices.yaml").read_text())[
        "eks"]["p4d.24xlarge"]["us-east-1"]["onDemand"]
    assert (rec.verdict, rec.reason) == ("mig", "16 GPU(s) whose pods peaked at 3.9 GiB of 40 GiB and 10% p95 activity "
                                                "over 24.0 h: MIG 7 x 1g.5gb per GPU holds them on 8 GPU(s)")
    assert rec.proposed == {"sharing": {"mode": "mig", "mig": {"strategy": "single", "layout": {"1g.5gb": 7}}},
                            "limits": {"gpus": 8}, "gpus": 8}
    assert rec.monthly_delta == pytest.approx(-8 * node_hour / 8 * 730)
    assert (rec.evidence["gpus"], rec.evidence["pods"], rec.evidence["headroomLeft"]) == (16, 16, round(
        4.75 / 3.9 - 1, 3))
    assert (rec.evidence["headroom"], rec.evidence["capacity"], rec.evidence["basis"]) == (0.2, "on-demand",
                                                                                          "always on")


@pytest.mark.parametrize("devices, given, verdict, reason", [
    ([], {}, "none", "no dcgm-exporter series for the pool's 0 node(s) in 1d: nothing to size on"),
    (_gpus(16, 3.9, 0.1), {"min_hours": 48}, "none",
     "too little data: 24.0 h of samples, at least 48 h are needed"),
    (_gpus(16, 3.9, 0.1), {"gone": {"ip-10-0-0-1": "no pool label", "ip-10-0-0-2": "x", "ip-10-0-0-3": "x",
                                    "ip-10-0-0-4": "x"}}, "none",
     "4 node(s) with this pool's GPU reported in the window but are not in the cluster now (ip-10-0-0-1, ip-10-0-0-2, "
     "ip-10-0-0-3, ...): autoscaled away, their jobs may need more than the survivors show; their pool is not known "
     "(ip-10-0-0-1: no pool label)"),
    (_gpus(16, 3.9, 0.1), {"doubt": "two clusters' nodes share names"}, "none", "two clusters' nodes share names"),
    # a memory figure that cannot be: above the GPU's 40 GiB (with 2% of slack)
    (_gpus(15, 3.9, 0.1) + _gpus(1, 41.0, 0.1), {}, "none",
     "the memory figures of 1 device(s) (node-0 GPU 0) are missing or cannot be (not a number, below 0, above the "
     "GPU's memory): nothing is proposed on them"),
    (_mixed((12, 3.9, 0.1), (4, 41.0, 0.1)), {}, "none",
     "the memory figures of 4 device(s) (node-1 GPU 4, node-1 GPU 5, node-1 GPU 6, ...) are missing or cannot be (not a "
     "number, below 0, above the GPU's memory): nothing is proposed on them"),
    # exactly two GPUs held by one pod: the pool stays whole GPUs
    (_gpus(16, 3.9, 0.1, **{"1": "gpu-0"}), {}, "keep",
     "1 pod(s) hold several GPUs (ml/gpu-0: 2): a process sees one MIG device and MIG has no NVLink or peer-to-peer, "
     "time-slicing would put them on slices of one GPU; the pool stays whole GPUs"),
    # busy: no MIG profile holds a pod at 90%, nor do two share a GPU
    (_gpus(16, 3.9, 0.9), {}, "keep",
     "busy: 16 GPU(s) whose pods peaked at 3.9 GiB of 40 GiB and 90% p95 activity over 24.0 h; packing them frees no "
     "GPU"),
    # one node of small pods: packed on 2 GPUs, but nodes come whole, and that is still one node of 8
    (_gpus(8, 3.9, 0.1), {}, "keep",
     "busy: 8 GPU(s) whose pods peaked at 3.9 GiB of 40 GiB and 10% p95 activity over 24.0 h; packing them frees no "
     "GPU"),
    # no activity series at all: each GPU counts as busy, and the reason says so
    (_gpus(16, 3.9, None), {}, "keep",
     "busy: 16 GPU(s) whose pods peaked at 3.9 GiB of 40 GiB and no activity series (each GPU counted as busy) over "
     "24.0 h; packing them frees no GPU"),
])
def test_what_a_pool_is_told_and_why(devices, given, verdict, reason):
    rec = _recommend(devices, **given)
    assert (rec.verdict, rec.reason, rec.proposed) == (verdict, reason, None)


@pytest.mark.parametrize("devices, verdict, reason", [
    # the biggest pod and the busiest decide: one pod at 3.9 GiB among 3.0 GiB ones
    (_mixed((15, 3.0, 0.05), (1, 3.9, 0.1)), "mig",
     "16 GPU(s) whose pods peaked at 3.9 GiB of 40 GiB and 10% p95 activity over 24.0 h: MIG 7 x 1g.5gb per GPU "
     "holds them on 8 GPU(s)"),
    # one GPU without an activity figure counts as busy (100%): no MIG profile holds it, nor do two share a GPU
    (_mixed((15, 3.9, 0.1), (1, 3.9, None)), "keep",
     "busy: 16 GPU(s) whose pods peaked at 3.9 GiB of 40 GiB and 100% p95 activity over 24.0 h; packing them frees no "
     "GPU"),
    # GPUs no pod holds are not sized on (whatever their memory shows): the 14 pods fit 1g.5gb
    (_unallocated(_mixed((14, 3.9, 0.1), (2, 30.0, 0.5)), 14, 15), "mig",
     "16 GPU(s) whose pods peaked at 3.9 GiB of 40 GiB and 10% p95 activity over 24.0 h: MIG 7 x 1g.5gb per GPU "
     "holds them on 8 GPU(s)"),
    # pods that need a whole GPU each, on 8 of 16 GPUs: one per GPU frees nothing a MIG layout would
    (_unallocated(_gpus(16, 20.0, 0.3), *range(8, 16)), "keep",
     "busy: 16 GPU(s) whose pods peaked at 20.0 GiB of 40 GiB and 30% p95 activity over 24.0 h; packing them frees no "
     "GPU"),
    # pods that used no memory at all: the smallest instance, and no headroom figure divided by zero
    (_gpus(16, 0.0, 0.05), "mig",
     "16 GPU(s) whose pods peaked at 0.0 GiB of 40 GiB and 5% p95 activity over 24.0 h: MIG 7 x 1g.5gb per GPU holds "
     "them on 8 GPU(s)"),
])
def test_which_gpus_and_figures_a_proposal_rests_on(devices, verdict, reason):
    rec = _recommend(devices)
    assert (rec.verdict, rec.reason, rec.evidence["gpus"]) == (verdict, reason, 16)
    assert ("headroomLeft" in rec.evidence) is (verdict == "mig" and rec.evidence["memPeakMiB"] > 0)


def test_an_autoscaled_pools_saving_is_for_the_hours_its_gpus_ran():
    """Half the GPUs there all the window, half for half of it: they ran 75% of its GPU-hours, and the saving is 75%
    of an always-on pool's; at 90% or more a pool is priced as always on."""
    always = _recommend(_gpus(16, 3.9, 0.1))
    devices = _gpus(16, 3.9, 0.1)
    for k, d in enumerate(devices):
        d.figures.present = 100.0 if k < 8 else 50.0
    rec = _recommend(devices)
    assert (rec.evidence["runShare"], rec.evidence["basis"]) == (0.75, "autoscaled: the GPUs ran 75% of the 24.0 h")
    assert rec.monthly_delta == pytest.approx(always.monthly_delta * 0.75)
    for d in devices:
        d.figures.present = 100.0 if d.figures.present == 100.0 else 80.0  # 90% of the GPU-hours
    rec = _recommend(devices)
    assert (rec.evidence["runShare"], rec.evidence["basis"], rec.monthly_delta) == (0.9, "always on",
                                                                                    always.monthly_delta)


def test_allocated_gpus_that_did_nothing_are_named():
    """A GPU a pod holds whose p95 activity and peak memory are both under 1% of the GPU did nothing; one under 1% of
    activity that used memory, a GPU no pod holds, or one without an activity figure did something or is not said."""
    devices = _mixed((12, 3.9, 0.1), (1, 0.0, 0.005), (1, 1.0, 0.005), (1, 0.0, None), (1, 0.0, 0.0))
    _unallocated(devices, 15)
    rec = _recommend(devices)
    assert (rec.idle, rec.evidence["idleGpus"]) == (["node-1 GPU 4"], 1)


def _instances(profile: str, count: int, mib: float, active: float) -> list[Device]:
    """count MIG instances of one profile on node-0's GPU 0 (GPU instance IDs 0 up), each held by a pod, over a day."""
    return [Device("node-0", "0", "GPU-0", profile, "NVIDIA A100-SXM4-40GB", str(k),
                   Figures(mem_peak=mib, active_p95=active, first=0.0, last=float(DAY)),
                   {("ml", f"infer-{k}"): Figures()})
            for k in range(count)]


def _mig(profile: str, per_gpu: int) -> dict:
    return {"mode": "mig", "mig": {"strategy": "single", "layout": {profile: per_gpu}}}


def test_an_idle_mig_instance_is_named_with_its_profile_and_instance():
    """A MIG pool's seven 1g.5gb instances of one GPU, each held by a pod: only the two that did nothing are named,
    each by its GPU, profile and GPU instance ID (dcgm-exporter's GPU_I_ID, nvidia-smi's GI), so the finding points
    at each instance, not twice at the same words."""
    devices = _instances("1g.5gb", 7, 2048.0, 0.1)
    for k in (3, 5):
        devices[k].figures.mem_peak, devices[k].figures.active_p95 = 0.0, 0.0
    rec = _recommend(devices, sharing=_mig("1g.5gb", 7))
    assert (rec.idle, rec.evidence["idleGpus"], rec.evidence["migDevices"]) == (
        ["node-0 GPU 0 1g.5gb GI 3", "node-0 GPU 0 1g.5gb GI 5"], 2, 7)
    # the memory figures that cannot be, likewise, in the order of their numbers (an A100's 1g.5gb are GI 7 to 14)
    devices[2].instance, devices[6].instance = "10", "9"
    devices[2].figures.mem_peak = devices[6].figures.mem_peak = float("nan")
    rec = _recommend(devices, sharing=_mig("1g.5gb", 7))
    assert rec.evidence["memoryUnusable"] == ["node-0 GPU 0 1g.5gb GI 9", "node-0 GPU 0 1g.5gb GI 10"]


def test_a_mig_pool_already_at_the_layout_its_pods_need_is_kept_busy():
    """Seven 1g.5gb instances at 2 GiB and half of their own slice's activity: 1g.5gb x 7 is what they need, the
    layout they have. Kept, and the reason counts MIG devices on GPUs and gives activity as a share of a whole GPU
    (half of one of seven compute slices: 7%)."""
    rec = _recommend(_instances("1g.5gb", 7, 2048.0, 0.5),
                     sharing=_mig("1g.5gb", 7))
    assert (rec.verdict, rec.proposed, rec.reason) == (
        "keep", None, "busy: 7 MIG device(s) on 1 GPU(s) whose pods peaked at 2.0 GiB and 7% of a GPU's p95 activity "
                      "over 24.0 h; packing them frees no GPU")


def test_a_mig_pool_whose_pod_no_profile_holds_with_headroom_is_kept():
    """A 7g.40gb instance whose pod peaked at 38 GiB: with 20% headroom (45.6 GiB) no A100 40GB profile holds it."""
    rec = _recommend(_instances("7g.40gb", 1, 38 * 1024.0, 0.5),
                     sharing=_mig("7g.40gb", 1))
    assert (rec.verdict, rec.proposed, rec.reason) == (
        "keep", None, "no MIG profile of A100-40GB holds every pod with 20% headroom")


def test_a_node_label_key_is_the_label_name_kube_state_metrics_writes():
    """kube-state-metrics (and Prometheus's service discovery) turn every character outside [a-zA-Z0-9_] into _ and
    keep the case: a label key with capitals joins as written, not lowered."""
    from gengpu.metrics.joining import sanitize

    assert sanitize("example.com/GPU-Pool") == "example_com_GPU_Pool"
    assert sanitize("nvidia.com/gpu.product") == "nvidia_com_gpu_product"


def test_a_node_no_series_labelled_has_no_labels():
    from gengpu.metrics.joining import NodeLabels

    assert NodeLabels({}).of("gpu-9") == {}


@pytest.mark.parametrize("op, value, matched", [
    ("=", "gpu-1", True), ("=", "gpu-.*", False), ("!=", "gpu-1", False),
    ("=~", "gpu-.*", True), ("=~", "gpu", False), ("!~", "gpu-.*", False), ("!~", "cpu-.*", True),
])
def test_a_recorded_series_is_matched_as_prometheus_matches_it(op, value, matched):
    """`--match` on a recording, as PromQL's matchers judge a series: = and != compare the text, =~ and !~ the whole
    text against the regex (anchored, so "gpu" does not match "gpu-1")."""
    from gengpu.metrics.usage import matches

    assert matches({"Hostname": "gpu-1"}, [("Hostname", op, value)]) is matched


def test_a_gpu_seen_only_after_the_windows_last_step_has_no_presence():
    """The coverage figure is PromQL's count_over_time of a [1d:345s] subquery, evaluated at multiples of 345 s: a GPU
    whose only sample came after the last of them (a node up in the window's last minutes) is at no step. Prometheus
    gives it no count at all, not a count of 0: a GPU there for no step would otherwise halve the pool's run share."""
    import dcgm_samples

    from gengpu.metrics import recorded

    gpus = [dcgm_samples.Gpu(f"node-{n}", 0, "serving", f"llm-{n}", (3900, 700), 8) for n in (1, 2)]
    text = dcgm_samples.openmetrics(gpus, hours=26, step=300)
    # node-2's one sample is the last, at the end: 195 s after the last step
    assert dcgm_samples.END % 345 == 195
    text = "\n".join(line for line in text.splitlines()
                     if 'Hostname="node-2"' not in line or line.endswith(f" {dcgm_samples.END}")) + "\n"
    recording, findings = recorded.load(text, "gpus.om")
    assert findings == []
    usage = recording.pool_usage("Hostname", ["node-1", "node-2"], "1d", dcgm_samples.END, False)
    # (the 250 steps of the day: multiples of 345 s in (END - 86400, END], each with a sample in the 300 s before it)
    assert [(d.node, d.figures.present) for d in usage.devices] == [("node-1", 250.0), ("node-2", None)]
    pool = sizing.PoolUsage(None, None, None, ["node-1", "node-2"], usage.devices, "1d", "test")
    assert sizing._run_share(pool) == 1.0
