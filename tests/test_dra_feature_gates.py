"""dra-feature-gates-refused at each chart line and version: the gate tables and ValidateFeatureGates checks of
NVIDIA/k8s-dra-driver-gpu v25.12.0 and kubernetes-sigs/dra-driver-nvidia-gpu v0.4.0/v0.5.0 (software.yaml)."""

import pytest

from gengpu.checking.rules._dra import gate_problems


def problems(chart, version, gates):
    return [(gate, message.split(",")[0]) for gate, message in gate_problems(chart, version, gates)]


def test_passthrough_beside_health_checks_is_refused_from_0_4_0_only():
    gates = {"PassthroughSupport": True, "NVMLDeviceHealthCheck": True}
    # 25.12.0's ValidateFeatureGates has the four DynamicMIG/cliques checks only
    assert problems("nvidia-dra-driver-gpu", "25.12.0", gates) == []
    assert problems("dra-driver-nvidia-gpu", "0.4.0", gates) == [
        ("NVMLDeviceHealthCheck", "feature gate PassthroughSupport is mutually exclusive with NVMLDeviceHealthCheck")]


def test_device_metadata_needs_passthrough_and_is_unknown_to_25_12():
    assert problems("dra-driver-nvidia-gpu", "0.5.0", {"DeviceMetadata": True}) == [
        ("DeviceMetadata", "feature gate DeviceMetadata requires PassthroughSupport to also be enabled")]
    assert problems("nvidia-dra-driver-gpu", "25.12.0", {"DeviceMetadata": True}) == [
        ("DeviceMetadata", "feature gate DeviceMetadata is not one nvidia-dra-driver-gpu 25.12.0 knows")]


def test_a_version_between_known_ones_uses_the_one_below():
    # 0.4.1 is judged with 0.4.0's table: ConsumableShares came in 0.5.0
    assert [g for g, _ in problems("dra-driver-nvidia-gpu", "0.4.1", {"ConsumableShares": True})] == ["ConsumableShares"]
    assert problems("dra-driver-nvidia-gpu", "0.5.0", {"ConsumableShares": True}) == []


@pytest.mark.parametrize("version", [None, "0.9.0"])
def test_unknown_or_newer_versions_keep_only_the_checks_every_version_makes(version):
    # names are not judged (a newer driver may know more); the conflicts all known versions refuse still are
    assert problems("dra-driver-nvidia-gpu", version, {"SomeFutureGate": True}) == []
    assert problems("dra-driver-nvidia-gpu", version, {"PassthroughSupport": True, "NVMLDeviceHealthCheck": True}) \
        == [("NVMLDeviceHealthCheck", "feature gate PassthroughSupport is mutually exclusive with NVMLDeviceHealthCheck")]
    assert problems("dra-driver-nvidia-gpu", version, {"DynamicMIG": "true", "MPSSupport": True}) == [
        ("MPSSupport", "feature gate DynamicMIG is mutually exclusive with MPSSupport")]


def test_older_versions_than_gengpu_knows_are_not_judged_and_logging_gates_pass():
    assert problems("nvidia-dra-driver-gpu", "25.8.0", {"DynamicMIG": True, "MPSSupport": True}) == []
    assert problems("dra-driver-nvidia-gpu", "0.5.0", {"ContextualLogging": True, "DynamicMIG": False,
                                                       "MPSSupport": True}) == []
