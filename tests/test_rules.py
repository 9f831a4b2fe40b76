"""Every rule fires on a case made to break it, at the expected line, and stays quiet on a near miss."""

import json
import textwrap

import pytest

from gengpu.checking.rules import RULES

BASE = """\
apiVersion: gengpu.dev/v1alpha1
kind: GPUProfile
metadata:
  name: rules
spec:
  platform: eks
  region: us-east-1
  zones: [us-east-1a]
  kubernetesVersion: "1.33"
  operator:
    version: v26.7.0
  nodePools:
    - name: pool
      gpu: A100-40GB
      gpusPerNode: 8
      instanceTypes: [p4d.24xlarge]
      capacityTypes: [on-demand]
      provisioner: karpenter
      sharing:
        mode: time-slicing
        replicas: 4
        failRequestsGreaterThanOne: true
  argocd:
    repoURL: https://github.com/example/gitops.git
"""
SECOND_POOL = """\
    - name: second
      gpu: T4
      gpusPerNode: 1
      instanceTypes: [g4dn.xlarge]
      provisioner: karpenter
"""
MIG = "      sharing:\n        mode: mig\n        mig:\n          strategy: mixed\n          layout:\n            3g.20gb: 2\n"
TS = "      sharing:\n        mode: time-slicing\n        replicas: 4\n        failRequestsGreaterThanOne: true\n"


def edit(*changes):
    text = BASE
    for old, new in changes:
        assert old in text, old
        text = text.replace(old, new, 1)
    return text


def add_pool(extra=""):
    return edit(("  argocd:\n", SECOND_POOL + extra + "  argocd:\n"))


GKE = (("platform: eks", "platform: gke"), ("region: us-east-1", "region: us-central1"),
       ("zones: [us-east-1a]", "zones: [us-central1-c]"), ("instanceTypes: [p4d.24xlarge]",
                                                           "instanceTypes: [a2-highgpu-8g]"),
       ("provisioner: karpenter", "provisioner: node-auto-provisioning"))
AUTOPILOT = (("platform: eks", "platform: gke-autopilot"), ("region: us-east-1", "region: us-central1"),
             ("zones: [us-east-1a]", "zones: []"), ("version: v26.7.0", "enabled: false"),
             ("provisioner: karpenter", "provisioner: autopilot"), ("gpusPerNode: 8", "gpusPerNode: 4"),
             ("instanceTypes: [p4d.24xlarge]", "instanceTypes: [a2-highgpu-4g]"))
MPS = (("mode: time-slicing", "mode: mps"),)

# rule -> (profile text that breaks it, "line:col", profile text that nearly does)
PROFILE_CASES = {
    "unknown-gpu-model": (edit(("gpu: A100-40GB", "gpu: A200")), "14:12", edit(("gpu: A100-40GB", "gpu: a100-40gb"))),
    "duplicate-pool-name": (add_pool().replace("name: second", "name: pool"), "23:13", add_pool()),
    "operator-unsupported-platform": (edit(*AUTOPILOT[:3], ("version: v26.7.0", "enabled: true"), *AUTOPILOT[4:]),
                                      "11:14", edit(*AUTOPILOT)),
    "driver-already-preinstalled": (edit(("version: v26.7.0", "version: v26.7.0\n    driver: operator")), "12:13",
                                    edit(("version: v26.7.0", "version: v26.7.0\n    driver: preinstalled"))),
    "mig-requires-capable-gpu": (edit(("gpu: A100-40GB", "gpu: T4"), ("gpusPerNode: 8", "gpusPerNode: 1"),
                                      ("instanceTypes: [p4d.24xlarge]", "instanceTypes: [g4dn.xlarge]"),
                                      (TS, MIG.replace("3g.20gb: 2", "1g.5gb: 1"))), "20:15", edit((TS, MIG))),
    "mig-layout-invalid": (edit((TS, MIG.replace("3g.20gb: 2", "3g.20gb: 3"))), "24:13", edit((TS, MIG))),
    "mig-single-not-uniform": (edit((TS, MIG.replace("mixed", "single").replace("3g.20gb: 2",
                                                                               "3g.20gb: 1\n            2g.10gb: 1"))),
                               "23:11", edit((TS, MIG.replace("mixed", "single")))),
    "mig-strategy-conflict": (edit((TS, MIG)).replace("  argocd:", SECOND_POOL.replace("gpu: T4", "gpu: A100-40GB")
                              .replace("gpusPerNode: 1", "gpusPerNode: 8").replace("g4dn.xlarge", "p4d.24xlarge")
                              + MIG.replace("mixed", "single") + "  argocd:"), "22:21",
                              edit((TS, MIG)).replace("  argocd:", SECOND_POOL.replace("gpu: T4", "gpu: A100-40GB")
                              .replace("gpusPerNode: 1", "gpusPerNode: 8").replace("g4dn.xlarge", "p4d.24xlarge")
                              + MIG + "  argocd:")),
    "mps-with-mixed-strategy": (edit((TS, MIG)).replace("  argocd:", SECOND_POOL + TS.replace("time-slicing", "mps")
                                                         + "  argocd:"), "31:15",
                                edit((TS, MIG.replace("mixed", "single")))
                                .replace("  argocd:", SECOND_POOL + TS.replace("time-slicing", "mps") + "  argocd:")),
    "mps-replicas-over-limit": (edit(*MPS, ("replicas: 4", "replicas: 49")), "21:19", edit(*MPS, ("replicas: 4",
                                                                                                "replicas: 48"))),
    "mps-operator-too-old": (edit(*MPS, ("version: v26.7.0", "version: v24.1.0")), "11:14",
                             edit(*MPS, ("version: v26.7.0", "version: v24.9.0"))),
    "gpu-not-offered-on-platform": (edit(*GKE, ("gpu: A100-40GB", "gpu: A10G")), "14:12", edit(*GKE)),
    "instance-type-unknown": (edit(("p4d.24xlarge", "p4d.24xlage")), "16:23", edit(("p4d.24xlarge", "p4d"))),
    "instance-type-gpu-mismatch": (edit(("p4d.24xlarge", "p5.48xlarge")), "16:23", edit(("p4d.24xlarge", "p4d"))),
    "gpus-per-node-mismatch": (edit(("gpusPerNode: 8", "gpusPerNode: 4")), "15:20", edit(("gpusPerNode: 8\n", ""))),
    "region-format-mismatch": (edit(("region: us-east-1", "region: eastus")), "7:11",
                               edit(("region: us-east-1", "region: eu-west-3"), ("us-east-1a", "eu-west-3c"))),
    "autopilot-gpu-not-allowed": (edit(*AUTOPILOT[:5], *AUTOPILOT[6:], ("gpusPerNode: 8", "gpusPerNode: 3")),
                                  "15:20", edit(*AUTOPILOT)),
    "spot-not-offered": (edit(*GKE[:3], ("p4d.24xlarge", "a3-highgpu-1g"), ("gpu: A100-40GB", "gpu: H100-80GB"),
                              ("gpusPerNode: 8", "gpusPerNode: 1"), GKE[4]), "16:23",
                         edit(*GKE[:3], ("p4d.24xlarge", "a3-highgpu-1g"), ("gpu: A100-40GB", "gpu: H100-80GB"),
                              ("gpusPerNode: 8", "gpusPerNode: 1"), GKE[4], ("[on-demand]", "[spot]"))),
    "driver-too-old-for-gpu": (edit((TS, MIG), ("version: v26.7.0", "version: v26.7.0\n    driverVersion: 440.33.01")),
                               "12:20", edit((TS, MIG), ("version: v26.7.0",
                                                         "version: v26.7.0\n    driverVersion: 450.80.02"))),
    "cuda-needs-newer-driver": (edit(("version: v26.7.0", "version: v26.7.0\n    driverVersion: 535.309.01"),
                                     ("      provisioner: karpenter", "      provisioner: karpenter\n      cudaVersion: \"13.0\"")),
                                "20:20", edit(("version: v26.7.0", "version: v26.7.0\n    driverVersion: 580.173.02"),
                                              ("      provisioner: karpenter", "      provisioner: karpenter\n      cudaVersion: \"13.0\""))),
    "operator-version-unknown": (edit(("version: v26.7.0", "version: v27.1.0")), "11:14", BASE),
    "mps-on-autopilot": (edit(*AUTOPILOT, *MPS), "20:15", edit(*AUTOPILOT)),
    "gke-shared-clients-over-limit": (edit(*AUTOPILOT, ("replicas: 4", "replicas: 49")), "21:19",
                                      edit(*AUTOPILOT, ("replicas: 4", "replicas: 48"))),
    "shared-gpu-multi-request": (edit(("failRequestsGreaterThanOne: true", "failRequestsGreaterThanOne: false")),
                                 "22:37", BASE),
    "monitoring-platform-mismatch": (edit(("  argocd:", "  monitoring:\n    mode: gke-managed\n  argocd:")), "24:11",
                                     edit(("  argocd:", "  monitoring:\n    mode: scrape-config\n  argocd:"))),
    "suppression-without-reason": (edit(("  argocd:", "  suppress:\n    - rule: instance-type-unknown\n  argocd:")),
                                   "24:7", edit(("  argocd:", "  suppress:\n    - rule: instance-type-unknown\n"
                                                             "      reason: a new size\n  argocd:"))),
    "suppression-unknown-rule": (edit(("  argocd:", "  suppress:\n    - rule: no-such-rule\n      reason: x\n  argocd:")),
                                 "24:13", edit(("  argocd:", "  suppress:\n    - rule: instance-type-unknown\n"
                                                           "      reason: x\n  argocd:"))),
    "mps-fail-requests-forced": (edit(*MPS, ("version: v26.7.0", "version: v26.3.0"),
                                      ("failRequestsGreaterThanOne: true", "failRequestsGreaterThanOne: false")),
                                 "22:37", edit(*MPS, ("failRequestsGreaterThanOne: true",
                                                      "failRequestsGreaterThanOne: false"))),
    "gpu-pool-untainted": (edit(("      provisioner: karpenter", "      provisioner: karpenter\n      taints: []")),
                           "19:7", BASE),
    "provisioner-platform-mismatch": (edit(("provisioner: karpenter", "provisioner: node-auto-provisioning")),
                                      "18:20", edit(("provisioner: karpenter", "provisioner: managed"))),
    "limits-below-one-node": (edit(("      provisioner: karpenter", "      provisioner: karpenter\n      limits:\n"
                                    "        gpus: 4")), "20:15",
                              edit(("      provisioner: karpenter", "      provisioner: karpenter\n      limits:\n"
                                    "        gpus: 8"))),
    "instance-type-retired": (edit(("platform: eks", "platform: aks"), ("region: us-east-1", "region: eastus"),
                                   ("zones: [us-east-1a]", "zones: ['1']"), ("gpu: A100-40GB", "gpu: V100-16GB"),
                                   ("gpusPerNode: 8", "gpusPerNode: 1"), ("p4d.24xlarge", "Standard_NC6s_v3"),
                                   ("provisioner: karpenter", "provisioner: managed")), "16:23",
                              edit(("platform: eks", "platform: aks"), ("region: us-east-1", "region: eastus"),
                                   ("zones: [us-east-1a]", "zones: ['1']"), ("gpu: A100-40GB", "gpu: T4"),
                                   ("gpusPerNode: 8", "gpusPerNode: 1"), ("p4d.24xlarge", "Standard_NC4as_T4_v3"),
                                   ("provisioner: karpenter", "provisioner: managed"))),
    "pool-config-label-mismatch": (edit(("      provisioner: karpenter", "      provisioner: karpenter\n      labels:\n"
                                         "        nvidia.com/device-plugin.config: other")), "20:42",
                                   edit(("      provisioner: karpenter", "      provisioner: karpenter\n      labels:\n"
                                         "        nvidia.com/device-plugin.config: pool"))),
    "gke-native-mig-uniform": (edit(*GKE[:4], ("version: v26.7.0", "enabled: false"),
                                    ("provisioner: karpenter", "provisioner: managed"), (TS, MIG.replace(
                                        "3g.20gb: 2", "3g.20gb: 1\n            2g.10gb: 1"))), "21:9",
                               edit(*GKE[:4], ("version: v26.7.0", "enabled: false"),
                                    ("provisioner: karpenter", "provisioner: managed"), (TS, MIG))),
    "duplicate-device-plugin": (edit(*GKE[:4], ("provisioner: karpenter", "provisioner: managed")), "13:7",
                                edit(*GKE[:4], ("provisioner: karpenter", "provisioner: managed\n      labels:\n"
                                                "        gke-no-default-nvidia-gpu-device-plugin: \"true\""))),
}

CP = """\
apiVersion: nvidia.com/v1
kind: ClusterPolicy
metadata:
  name: cluster-policy
spec:
  operator:
    defaultRuntime: containerd
  devicePlugin:
    config:
      name: time-slicing-config
  cdi:
    enabled: true
    nriPluginEnabled: true
  toolkit:
    enabled: false
  daemonsets: {}
  dcgm: {}
  dcgmExporter: {}
  driver: {}
  gfd: {}
  nodeStatusExporter: {}
"""
DP = """\
version: v1
flags:
  migStrategy: none
sharing:
  timeSlicing:
    resources:
      - name: nvidia.com/gpu
        replicas: 4
"""
MP = """\
version: v1
mig-configs:
  all-disabled:
    - devices: all
      mig-enabled: false
  custom:
    - devices: all
      mig-enabled: true
      mig-devices:
        1g.5gb: 2
        3g.20gb: 1
"""
MP_CM = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: custom-mig-config\ndata:\n  config.yaml: |\n" + \
    textwrap.indent(MP, "    ")
POD = """\
apiVersion: v1
kind: Pod
metadata:
  name: p
spec:
  tolerations:
    - key: nvidia.com/gpu
      operator: Exists
  containers:
    - name: c
      image: cuda
      resources:
        limits:
          nvidia.com/gpu: 1
"""
CM_HEAD = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: dp\ndata:\n  pool: |\n"
CM = CM_HEAD + textwrap.indent(DP, "    ")
NODEPOOL = "---\napiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata:\n  name: gpu\nspec:\n  template:\n    metadata:\n" \
           "      labels:\n        nvidia.com/device-plugin.config: pool\n    spec:\n      nodeClassRef: {group: " \
           "karpenter.k8s.aws, kind: EC2NodeClass, name: gpu}\n      requirements: []\n"


def r(text, *changes):
    for old, new in changes:
        assert old in text, old
        text = text.replace(old, new, 1)
    return text


# rule -> (kind passed to --kind or None, use the base profile as context, bad text, "line:col", near miss)
DOC_CASES = {
    "sharing-both-modes": (None, False, DP + "  mps:\n    resources:\n      - name: nvidia.com/gpu\n        replicas: 2\n",
                           "9:3", r(DP, ("timeSlicing", "mps"))),
    "sharing-replicas-too-low": (None, False, r(DP, ("replicas: 4", "replicas: 1")), "8:19", DP),
    "sharing-resource-name-invalid": (None, False, r(DP, ("nvidia.com/gpu", "nvidia.com/GPU")), "7:15",
                                      r(DP, ("nvidia.com/gpu", "gpu"))),
    "sharing-resource-not-shareable": (None, False, r(DP, ("nvidia.com/gpu", "nvidia.com/gpus")), "7:15",
                                       r(DP, ("nvidia.com/gpu", "nvidia.com/mig-1g.10gb"))),
    "sharing-setting-ignored": (None, False, DP + "        devices: [0]\n", "9:9", DP + "        devices: all\n"),
    "mps-with-mig-strategy": (None, False, r(DP, ("none", "mixed"), ("timeSlicing", "mps")), "3:16",
                              r(DP, ("none", "single"), ("timeSlicing", "mps"))),
    "mps-on-mig-device": (None, False, r(DP, ("timeSlicing", "mps"), ("nvidia.com/gpu", "nvidia.com/mig-1g.10gb")),
                          "7:15", r(DP, ("nvidia.com/gpu", "nvidia.com/mig-1g.10gb"))),
    "flag-overridden-by-operator": (None, False, r(CM, ("      migStrategy: none\n",
                                                        "      migStrategy: none\n      plugin:\n        deviceIDStrategy: index\n")),
                                    "11:9", CM),
    "device-plugin-config-schema": ("device-plugin-config", False, r(DP, ("replicas: 4", "replicas: four")), "8:19",
                                    DP),
    "device-plugin-unknown-field": ("device-plugin-config", False, r(DP, ("  timeSlicing:", "  timeslicing:")), "5:3",
                                    DP),
    "mig-profile-name-invalid": (None, False, r(MP, ("1g.5gb: 2", "1g5gb: 2")), "10:9", MP),
    "mig-parted-all-counts-zero": (None, False, r(MP, ("1g.5gb: 2", "1g.5gb: 0"), ("3g.20gb: 1", "3g.20gb: 0")),
                                   "9:7", r(MP, ("1g.5gb: 2", "1g.5gb: 0"))),
    # In the operator's ConfigMap; a file for mig-parted alone (the near miss) needs no all-disabled.
    "mig-config-missing-all-disabled": (None, False, MP_CM.replace("      all-disabled:\n        - devices: all\n"
                                                                   "          mig-enabled: false\n", ""), "8:5",
                                        r(MP, ("  all-disabled:\n    - devices: all\n      mig-enabled: false\n", ""))),
    "mig-layout-not-checked": (None, False, r(MP, ("3g.20gb: 1", "3g.95gb: 1")), "9:7", MP),
    "mig-parted-layout-invalid": (None, False, r(MP, ("1g.5gb: 2", "1g.5gb: 5")), "9:7", r(MP, ("1g.5gb: 2",
                                                                                                  "1g.5gb: 4"))),
    "mig-device-filter-unknown": (None, False, r(MP, ("    - devices: all\n      mig-enabled: true",
                                                      "    - device-filter: \"0xFFFF10DE\"\n      devices: all\n"
                                                      "      mig-enabled: true")), "7:7",
                                  r(MP, ("    - devices: all\n      mig-enabled: true",
                                         "    - device-filter: \"0x20B010DE\"\n      devices: all\n"
                                         "      mig-enabled: true"))),
    "mig-parted-config-schema": ("mig-parted-config", False, r(MP, ("version: v1\n", "version: v2\n")), "1:10", MP),
    "mig-parted-unknown-field": ("mig-parted-config", False, r(MP, ("mig-enabled: false", "mig-enable: false")),
                                 "5:7", MP),
    "clusterpolicy-config-without-default": (None, False, CP, "9:5",
                                             r(CP, ("name: time-slicing-config", "name: t\n      default: any"))),
    "cdi-nri-without-toolkit": (None, False, CP, "13:23", r(CP, ("enabled: false", "enabled: true"))),
    "operator-default-runtime-deprecated": (None, False, CP, "7:5", r(CP, ("    defaultRuntime: containerd\n", "    runtimeClass: nvidia\n"))),
    "object-schema": (None, False, r(CP, ("  devicePlugin:", "  devicePlugins:\n    enabled: true\n  devicePlugin:")),
                             "8:3", r(CP, ("    nriPluginEnabled: true\n", ""))),
    "gpu-in-requests-only": (None, False, r(POD, ("        limits:", "        requests:")), "14:11", POD),
    "gpu-request-limit-differ": (None, False, POD + "        requests:\n          nvidia.com/gpu: 2\n", "16:27",
                                 POD + "        requests:\n          nvidia.com/gpu: 1\n"),
    "gpu-quantity-not-integer": (None, False, r(POD, ("nvidia.com/gpu: 1", "nvidia.com/gpu: 500m")), "14:27", r(POD, (
        "nvidia.com/gpu: 1", "nvidia.com/gpu: \"2\""))),
    "gpu-visible-devices-env": (None, False, r(POD, ("      resources:\n        limits:\n          nvidia.com/gpu: 1\n",
                                                     "      env:\n        - name: NVIDIA_VISIBLE_DEVICES\n          value: all\n"
                                                     "      resources:\n        limits:\n          cpu: 1\n")),
                                "13:11", r(POD, ("      resources:", "      env:\n        - name: NVIDIA_VISIBLE_DEVICES\n"
                                                 "          value: all\n      resources:"))),
    "gpu-resource-name-unknown": (None, False, r(POD, ("nvidia.com/gpu: 1", "nvidia.com/gpus: 1")), "14:11",
                                  r(POD, ("nvidia.com/gpu: 1", "nvidia.com/mig-1g.10gb: 1"))),
    "gpu-resource-not-advertised": (None, True, r(POD, ("nvidia.com/gpu: 1", "nvidia.com/gpu.shared: 1")), "14:11",
                                    POD),
    "gpu-taint-not-tolerated": (None, True, r(POD, ("  tolerations:\n    - key: nvidia.com/gpu\n      operator: Exists\n",
                                                    "  tolerations:\n    - key: nvidia.com/gpu\n      operator: Equal\n"
                                                    "      value: present\n")), "6:3", POD),
    "shared-gpu-request-over-one": (None, True, r(POD, ("nvidia.com/gpu: 1", "nvidia.com/gpu: 2")), "14:27", POD),
    "config-label-unknown": (None, False, CM + NODEPOOL.replace("config: pool", "config: missing"), "24:42",
                             CM + NODEPOOL),
}

PRIVILEGED = r(POD, ("      image: cuda\n", "      image: cuda\n      securityContext:\n        privileged: true\n"))
PLACED_NODEPOOL = """\
apiVersion: karpenter.sh/v1
kind: NodePool
metadata:
  name: pool
spec:
  template:
    metadata:
      labels:
        gengpu.dev/pool: pool
    spec:
      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: pool}
      requirements: []
      taints:
        - key: nvidia.com/gpu
          effect: NoSchedule
---
apiVersion: gengpu.dev/v1alpha1
kind: Placement
metadata:
  name: pool
  annotations:
    config.kubernetes.io/local-config: "true"
spec:
  pool: pool
  resource: nvidia.com/gpu
  nodeSelector: {gengpu.dev/pool: pool}
  tolerations:
    - key: nvidia.com/gpu
      operator: Exists
      value: ""
      effect: NoSchedule
"""
DOC_CASES["autopilot-privileged-workload"] = (None, edit(*AUTOPILOT), PRIVILEGED, "13:21", POD)
DOC_CASES["api-version-removed"] = (
    None, False, "apiVersion: resource.k8s.io/v1alpha2\nkind: ResourceClaim\nmetadata:\n  name: gpu\nspec:\n"
                 "  resourceClassName: gpu.nvidia.com\n", "1:13",
    "apiVersion: resource.k8s.io/v1\nkind: ResourceClaim\nmetadata:\n  name: gpu\nspec:\n  devices:\n    requests:\n"
    "      - name: gpu\n        exactly:\n          deviceClassName: gpu.nvidia.com\n")
DOC_CASES["gpu-resource-vendor"] = (None, False, r(POD, ("nvidia.com/gpu: 1", "nvidia.com/gpu: 1\n          "
                                                                          "nvidia.com/gpumem: 3000")), "15:11", POD)
DOC_CASES["gpu-resource-removed"] = (None, False, r(POD, ("nvidia.com/gpu: 1", "alpha.kubernetes.io/nvidia-gpu: 1")),
                                     "14:11", POD)

CLAIM = """\
apiVersion: resource.k8s.io/v1
kind: ResourceClaimTemplate
metadata:
  name: shared
spec:
  spec:
    devices:
      requests:
        - name: gpu
          exactly:
            deviceClassName: gpu.nvidia.com
      config:
        - requests: [gpu]
          opaque:
            driver: gpu.nvidia.com
            parameters:
              apiVersion: resource.nvidia.com/v1beta1
              kind: GpuConfig
              sharing:
                strategy: TimeSlicing
                timeSlicingConfig:
                  interval: Long
"""
VALUES = """\
driver:
  enabled: false
toolkit:
  enabled: false
devicePlugin:
  config:
    create: true
    name: sharing
    default: any
    data:
      any: |
        version: v1
        sharing:
          timeSlicing:
            resources:
              - name: nvidia.com/gpu
                replicas: 4
"""
KNODEPOOL = """\
apiVersion: karpenter.sh/v1
kind: NodePool
metadata:
  name: gpu
spec:
  template:
    spec:
      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: gpu}
      requirements:
        - key: karpenter.k8s.aws/instance-family
          operator: In
          values: [g6]
        - key: karpenter.sh/capacity-type
          operator: In
          values: [spot]
      taints:
        - {key: nvidia.com/gpu, effect: NoSchedule}
"""
NODECLASS = """\
apiVersion: karpenter.k8s.aws/v1
kind: EC2NodeClass
metadata:
  name: gpu
spec:
  role: KarpenterNodeRole-gpu
  amiSelectorTerms:
    - alias: al2023@v20260917
  subnetSelectorTerms:
    - tags: {karpenter.sh/discovery: gpu}
  securityGroupSelectorTerms:
    - tags: {karpenter.sh/discovery: gpu}
"""
DOC_CASES.update({
    "dra-sharing-feature-gate": (None, False, CLAIM, "20:27", r(CLAIM, ("              sharing:\n                strategy: "
                                                                        "TimeSlicing\n                timeSlicingConfig:\n"
                                                                        "                  interval: Long\n", ""))),
    "dra-gpu-config-invalid": (None, False, r(CLAIM, ("interval: Long", "interval: Longest")), "22:29", CLAIM),
    "helm-values-unknown-key": (None, False, r(VALUES, ("  config:\n", "  configs:\n")), "6:3", VALUES),
    "helm-values-key-removed": (None, False, VALUES + "cdi:\n  default: true\n", "19:3",
                                VALUES + "cdi:\n  enabled: true\n"),
    "helm-config-create-empty": (None, False, VALUES.split("    data:")[0] + "    data: {}\n", "10:5", VALUES),
    "helm-config-default-unknown": (None, False, r(VALUES, ("default: any", "default: all")), "9:14", VALUES),
    "karpenter-requirement-value-unknown": (None, False, r(KNODEPOOL, ("values: [spot]", "values: [xspot]")), "15:20",
                                            KNODEPOOL),
    "karpenter-gpu-pool-untainted": (None, False, r(KNODEPOOL, ("      taints:\n        - {key: nvidia.com/gpu, effect: "
                                                                "NoSchedule}\n", "")), "7:5", KNODEPOOL),
    "ec2nodeclass-ami-latest": (None, False, r(NODECLASS, ("al2023@v20260917", "al2023@latest")), "8:14", NODECLASS),
})
SERVICE_MONITOR = """\
apiVersion: monitoring.coreos.com/v1
kind: ServiceMonitor
metadata:
  name: dcgm-exporter
spec:
  selector:
    matchLabels:
      app: nvidia-dcgm-exporter
  endpoints:
    - port: gpu-metrics
      honorLabels: true
"""
DOC_CASES["dcgm-monitor-honor-labels"] = (None, False, r(SERVICE_MONITOR, ("      honorLabels: true\n", "")), "10:7",
                                          SERVICE_MONITOR)
DOC_CASES["karpenter-gpu-requirements-conflict"] = (
    None, False, r(KNODEPOOL, ("      taints:", "        - key: karpenter.k8s.aws/instance-gpu-name\n          operator: In\n"
                                                "          values: [a10g]\n      taints:")), "12:11",
    r(KNODEPOOL, ("      taints:", "        - key: karpenter.k8s.aws/instance-gpu-name\n          operator: In\n"
                                    "          values: [l4]\n      taints:")))
DOC_CASES["placement-taints-mismatch"] = (None, False, r(PLACED_NODEPOOL, ("key: nvidia.com/gpu\n      operator",
                                                                           "key: gpu\n      operator")),
                                          "27:3", PLACED_NODEPOOL)

PLACED = """\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: any
  annotations:
    gengpu.dev/pool: second
spec:
  selector: {matchLabels: {app: any}}
  template:
    metadata: {labels: {app: any}}
    spec:
      nodeSelector: {gengpu.dev/pool: second}
      containers:
        - name: c
          image: cuda
          resources:
            limits:
              nvidia.com/gpu: 1
"""
# the second pool has one T4 per node: two GPUs in one pod never fit
DOC_CASES["placement-request-unfit"] = (None, add_pool(), r(PLACED, ("nvidia.com/gpu: 1", "nvidia.com/gpu: 2")),
                                        "11:5", PLACED)
DOC_CASES["placement-without-gpu-request"] = (
    None, add_pool(), r(PLACED, ("          resources:\n            limits:\n              nvidia.com/gpu: 1\n", "")),
    "13:7", PLACED)

NODE_OVERLAY = """\
apiVersion: karpenter.sh/v1alpha1
kind: NodeOverlay
metadata:
  name: l4-shared
spec:
  requirements:
    - {key: karpenter.sh/nodepool, operator: In, values: [l4-shared]}
    - {key: node.kubernetes.io/instance-type, operator: In, values: [g6.xlarge]}
  capacity:
    nvidia.com/gpu: "4"
"""
DOC_CASES["karpenter-nodeoverlay-unscoped"] = (
    None, False, r(NODE_OVERLAY, ("    - {key: karpenter.sh/nodepool, operator: In, values: [l4-shared]}\n", "")),
    "6:3", NODE_OVERLAY)

NAP_LIMIT = ("        failRequestsGreaterThanOne: true\n",
             "        failRequestsGreaterThanOne: true\n      limits:\n        gpus: 16\n")
NAP_CLUSTER = ("  argocd:\n", "  gke:\n    autoprovisioning:\n      gpus:\n        A100-40GB: 8\n  argocd:\n")
PROFILE_CASES["gke-nap-gpu-limit-missing"] = (edit(*GKE), "13:7", edit(*GKE, NAP_LIMIT))
PROFILE_CASES["gke-nap-gpu-limit-too-low"] = (edit(*GKE, NAP_LIMIT, NAP_CLUSTER), "28:20",
                                              edit(*GKE, NAP_LIMIT, (NAP_CLUSTER[0], NAP_CLUSTER[1].replace(": 8", ": 16"))))

AKS_MANAGED = (("platform: eks", "platform: aks"), ("region: us-east-1", "region: eastus"),
               ("zones: [us-east-1a]", "zones: []"), ("instanceTypes: [p4d.24xlarge]",
                                                      "instanceTypes: [Standard_ND96asr_v4]"),
               ("provisioner: karpenter", "provisioner: managed"))
PROFILE_CASES["managed-pool-mixed-capacity"] = (
    edit(*AKS_MANAGED, ("capacityTypes: [on-demand]", "capacityTypes: [spot, on-demand]")), "17:7",
    edit(*AKS_MANAGED, ("capacityTypes: [on-demand]", "capacityTypes: [spot]")))

PROFILE_CASES["kubelet-not-applied"] = (
    edit(*AKS_MANAGED, ("capacityTypes: [on-demand]", "capacityTypes: [on-demand]\n      kubelet: {maxPods: 50}")),
    "18:7", edit(("capacityTypes: [on-demand]", "capacityTypes: [on-demand]\n      kubelet: {maxPods: 50}")))

PROFILE_CASES["gke-driver-installer-unpinned"] = (
    edit(*GKE, NAP_LIMIT, ("  argocd:\n", "  gke:\n    driverInstallerRevision: master\n  argocd:\n")), "26:30",
    edit(*GKE, NAP_LIMIT, ("  argocd:\n", "  gke:\n    driverInstallerRevision: "
                                            "992db81257553607f1477945f1b3219632991829\n  argocd:\n")))

# ND96asr_v4 (A100 40GB) is offered in five Azure regions (karpenter-provider-azure v1.14.2's price table), not in
# northeurope; its own geography (Europe) has westeurope
PROFILE_CASES["instance-type-not-in-region"] = (
    edit(*AKS_MANAGED, ("region: eastus", "region: northeurope")), "16:7", edit(*AKS_MANAGED))

PROFILE_CASES["autopilot-machine-type-not-pinned"] = (
    edit(*AUTOPILOT[:5], ("gpu: A100-40GB", "gpu: H100-80GB"), ("gpusPerNode: 8", "gpusPerNode: 8"),
         ("instanceTypes: [p4d.24xlarge]", "instanceTypes: [a3-edgegpu-8g]")), "16:23",
    edit(*AUTOPILOT[:5], ("gpu: A100-40GB", "gpu: H200-141GB"),
         ("instanceTypes: [p4d.24xlarge]", "instanceTypes: [a3-ultragpu-8g]")))

# DRA pools: Kubernetes 1.34 (resource.k8s.io/v1), a platform and a provisioner that support them
DRA = (("kubernetesVersion: \"1.33\"", "kubernetesVersion: \"1.34\""), ("      sharing:\n", "      allocation: dra\n      sharing:\n"))
PROFILE_CASES["dra-kubernetes-too-old"] = (edit(*AKS_MANAGED, DRA[1]), "19:19", edit(*AKS_MANAGED, *DRA))
PROFILE_CASES["dra-provisioner-unsupported"] = (edit(*DRA), "18:20", edit(*AKS_MANAGED, *DRA))
PROFILE_CASES["dra-platform-unsupported"] = (edit(*AUTOPILOT, *DRA), "19:19", edit(*AUTOPILOT, DRA[0]))
DRA_VALUES = """\
nvidiaDriverRoot: /run/nvidia/driver
resources:
  gpus:
    enabled: true
kubeletPlugin:
  nodeSelector: {nvidia.com/dra-kubelet-plugin: "true"}
"""
DOC_CASES["dra-chart-gpus-without-override"] = (
    None, False, DRA_VALUES, "4:14", DRA_VALUES + "gpuResourcesEnabledOverride: true\n")

LIMITED = ("      provisioner: karpenter\n", "      provisioner: karpenter\n      limits:\n        gpus: 16\n")
PROFILE_CASES["pool-unbounded"] = (BASE, "18:20", edit(LIMITED))
# two p4d.24xlarge (96 vCPUs each) under the one On-Demand P quota, whose documented default is 0
PROFILE_CASES["quota-above-default"] = (
    edit(LIMITED), "19:7",
    edit(LIMITED, ("  argocd:\n", "  quotas:\n    L-417A185B: 192\n  argocd:\n")))


# the second pool, time-sliced 4 ways on a 16 GB T4: 4 GB a slice
SLICED = "      sharing:\n        mode: time-slicing\n        replicas: 4\n        failRequestsGreaterThanOne: true\n"
DOC_CASES["shared-slice-too-small"] = (
    None, add_pool(SLICED), r(PLACED, ("    gengpu.dev/pool: second\n", "    gengpu.dev/pool: second\n"
                                                                       "    gengpu.dev/gpu-memory: 6Gi\n")), "7:28",
    r(PLACED, ("    gengpu.dev/pool: second\n", "    gengpu.dev/pool: second\n    gengpu.dev/gpu-memory: 3500Mi\n")))


# Structural rules: what parsing and the schemas find, through the same exact-findings check
DOC_CASES.update({
    "yaml-syntax": (None, False, "a: [1, 2\n", "2:1", "a: [1, 2]\n"),
    "yaml-duplicate-key": (None, False, "version: v1\nversion: v1\nsharing: {}\n", "2:1",
                           "version: v1\nsharing: {}\n"),
    "yaml-tag": (None, False, "version: !!int abc\n", "1:10", "version: !!int 1\n"),
    "yaml-merge": (None, False, "base: &b [1]\nx:\n  <<: *b\n", "1:7", "base: &b {k: 1}\nx:\n  <<: *b\n"),
    "not-recognized": (None, False, "hello: world\n", "0:0", "version: v1\nsharing: {}\n"),
    "gke-autoprovisioning-schema": (None, False, "resourceLimits:\n  - resourceType: cpu\n    maximum: ten\n",
                                    "3:14", "resourceLimits:\n  - resourceType: cpu\n    maximum: 10\n"),
})
PROFILE_CASES["profile-schema"] = (edit(("gpusPerNode: 8", "gpusPerNode: eight")), "15:20", BASE)

# Every other finding a case produces, so each case's complete list of findings is asserted. BASE's Karpenter
# pool has no limits (pool-unbounded at 18:20), which every profile case inherits and no list repeats.
MONITORING = [("monitoring-platform-mismatch", "5:1")]  # Autopilot cases keep BASE's service-monitor
ALSO = {
    "autopilot-gpu-not-allowed": MONITORING, "autopilot-machine-type-not-pinned": MONITORING,
    "dra-platform-unsupported": MONITORING, "gke-shared-clients-over-limit": MONITORING,
    "mps-on-autopilot": MONITORING, "operator-unsupported-platform": MONITORING,
    # cases that move BASE's pool down a line or add an unbounded second pool
    "cuda-needs-newer-driver": [("pool-unbounded", "19:20")],
    "driver-already-preinstalled": [("pool-unbounded", "19:20")],
    "driver-too-old-for-gpu": [("pool-unbounded", "19:20")],
    "duplicate-pool-name": [("pool-unbounded", "27:20")],
    "mig-strategy-conflict": [("pool-unbounded", "29:20"), ("mig-strategy-conflict", "33:21")],
    "mps-with-mixed-strategy": [("pool-unbounded", "29:20")],
    "gpu-not-offered-on-platform": [("instance-type-gpu-mismatch", "16:23")],
    "limits-below-one-node": [("quota-above-default", "19:7")],
    "mps-operator-too-old": [("operator-version-unknown", "11:14")],
    "spot-not-offered": [("gke-nap-gpu-limit-missing", "13:7")],
    "api-version-removed": [("object-no-schema", "2:7")],
    "cdi-nri-without-toolkit": [("operator-default-runtime-deprecated", "7:5"),
                                ("clusterpolicy-config-without-default", "9:5")],
    "clusterpolicy-config-without-default": [("operator-default-runtime-deprecated", "7:5"),
                                             ("cdi-nri-without-toolkit", "13:23")],
    "operator-default-runtime-deprecated": [("clusterpolicy-config-without-default", "9:5"),
                                            ("cdi-nri-without-toolkit", "13:23")],
    "object-schema": [("operator-default-runtime-deprecated", "7:5"), ("clusterpolicy-config-without-default", "11:5"),
                      ("cdi-nri-without-toolkit", "15:23")],
    "dra-gpu-config-invalid": [("dra-sharing-feature-gate", "20:27")],
    "mig-parted-unknown-field": [("mig-parted-config-schema", "4:7")],
    "placement-request-unfit": [("gpu-taint-not-tolerated", "11:5")],
    "placement-taints-mismatch": [("object-no-schema", "18:7"), ("placement-taints-mismatch", "28:7")],
    "shared-slice-too-small": [("gpu-taint-not-tolerated", "12:5")],
}

STRUCTURAL = {"script-syntax", "file-unreadable", "duplicate-profile-name",
              "kustomize-build", "overlay-kind-no-schema", "not-generated-file",
              # tests/test_hostile.py
              "yaml-limit", "object-malformed", "gpu-configmap-invalid",
              # tests/test_writing.py, tests/test_build.py
              "overlay-orphaned", "generated-file-edited", "build-interrupted",
              # tests/test_objects.py
              "object-no-schema", "object-cel", "object-cel-not-evaluated"}


def findings(run, tmp_path, text, name="case.yaml", kind=None, context=False):
    (tmp_path / name).write_text(text)
    args = ["validate", name, "--output", "json"]
    if kind:
        args += ["--kind", kind]
    if context:
        (tmp_path / "cluster.yaml").write_text(context if isinstance(context, str) else BASE)
        args += ["--profile", "cluster.yaml"]
    result = run(*args, cwd=tmp_path)
    assert result.exit_code in (0, 1), result.output
    return [(f["rule"], f"{f['line']}:{f['column']}") for f in json.loads(result.output)["findings"]]


def test_every_rule_has_a_case():
    covered = set(PROFILE_CASES) | set(DOC_CASES) | STRUCTURAL
    assert sorted(set(RULES) - covered) == []
    assert len([r for r in RULES.values() if r.check is not None]) >= 35


def test_the_base_profile_is_clean(run, tmp_path):
    # but for its Karpenter pool without limits, which the cases leave so (see pool-unbounded)
    assert findings(run, tmp_path, BASE) == [("pool-unbounded", "18:20")]


@pytest.mark.parametrize("rule", sorted(PROFILE_CASES))
def test_profile_rule_fires(run, tmp_path, rule):
    bad, where, _ = PROFILE_CASES[rule]
    got = [f for f in findings(run, tmp_path, bad) if f != ("pool-unbounded", "18:20") or rule == "pool-unbounded"]
    assert sorted(got) == sorted([(rule, where), *ALSO.get(rule, [])])


@pytest.mark.parametrize("rule", sorted(PROFILE_CASES))
def test_profile_rule_stays_quiet_on_a_near_miss(run, tmp_path, rule):
    _, _, good = PROFILE_CASES[rule]
    assert [f for f in findings(run, tmp_path, good) if f[0] == rule] == []


@pytest.mark.parametrize("rule", sorted(DOC_CASES))
def test_document_rule_fires(run, tmp_path, rule):
    kind, context, bad, where, _ = DOC_CASES[rule]
    got = findings(run, tmp_path, bad, kind=kind, context=context)
    assert sorted(got) == sorted([(rule, where), *ALSO.get(rule, [])])


@pytest.mark.parametrize("rule", sorted(DOC_CASES))
def test_document_rule_stays_quiet_on_a_near_miss(run, tmp_path, rule):
    kind, context, _, _, good = DOC_CASES[rule]
    assert [f for f in findings(run, tmp_path, good, kind=kind, context=context) if f[0] == rule] == []


@pytest.mark.parametrize("rule", sorted(RULES))
def test_every_rule_is_explained(run, rule):
    r = RULES[rule]
    assert r.severity in ("error", "warning", "info")
    assert len(r.summary) > 10 and len(r.fix) > 10 and len(r.explanation) > 40 and r.source
    out = run("explain", rule).output
    assert out.startswith(f"{rule} ({r.severity}, checks {r.applies_to})\n")


def test_rules_json_lists_them_all(run):
    listed = json.loads(run("rules", "--output", "json").output)
    assert [r["id"] for r in listed] == sorted(RULES)
    assert set(listed[0]) == {"id", "severity", "appliesTo", "summary", "fix", "explanation", "source"}


def test_annotation_suppresses_a_workload_rule_only_with_a_reason(run, tmp_path):
    bad = r(POD, ("nvidia.com/gpu: 1", "nvidia.com/gpu: 500m"))
    with_reason = r(bad, ("  name: p\n", "  name: p\n  annotations:\n    gengpu.dev/suppress.gpu-quantity-not-integer: "
                                         "\"vendor webhook rewrites it\"\n"))
    assert [f for f in findings(run, tmp_path, with_reason) if f[0] == "gpu-quantity-not-integer"] == []
    without = r(bad, ("  name: p\n", "  name: p\n  annotations:\n    gengpu.dev/suppress.gpu-quantity-not-integer: \"\"\n"))
    got = findings(run, tmp_path, without)
    assert ("gpu-quantity-not-integer", "16:27") in got
    assert ("suppression-without-reason", "6:5") in got


def test_profile_suppression_is_limited_to_its_pools(run, tmp_path):
    text = edit(("failRequestsGreaterThanOne: true", "failRequestsGreaterThanOne: false"))
    text = text.replace("  argocd:", SECOND_POOL + TS.replace("        failRequestsGreaterThanOne: true\n", "")
                        + "  suppress:\n    - rule: shared-gpu-multi-request\n      reason: one GPU per pod here\n"
                          "      pools: [pool]\n  argocd:")
    got = [f for f in findings(run, tmp_path, text) if f[0] == "shared-gpu-multi-request"]
    assert got == [("shared-gpu-multi-request", "29:15")]


def test_a_profile_suppression_without_a_reason_silences_nothing(run, tmp_path):
    """The README: a suppression without a reason is a finding, and the rule it names still fires."""
    text = edit(("failRequestsGreaterThanOne: true", "failRequestsGreaterThanOne: false"),
                ("  argocd:", "  suppress:\n    - rule: shared-gpu-multi-request\n  argocd:"))
    got = findings(run, tmp_path, text)
    assert sorted(f[0] for f in got) == ["pool-unbounded", "shared-gpu-multi-request", "suppression-without-reason"]
    with_reason = text.replace("    - rule: shared-gpu-multi-request\n",
                               "    - rule: shared-gpu-multi-request\n      reason: one GPU per pod here\n")
    assert findings(run, tmp_path, with_reason) == [("pool-unbounded", "18:20")]


def test_a_config_label_is_not_judged_without_any_config(run, tmp_path):
    """A NodePool naming a device-plugin config key, validated without the ConfigMap: nothing to compare with."""
    got = findings(run, tmp_path, NODEPOOL.lstrip("-\n").replace("config: pool", "config: missing"))
    assert [f for f in got if f[0] == "config-label-unknown"] == []
    assert ("config-label-unknown", "24:42") in findings(run, tmp_path, CM + NODEPOOL.replace("config: pool",
                                                                                                "config: missing"))


def test_a_workload_on_a_dra_pool_must_use_its_claim_and_no_extended_resource(run, tmp_path):
    """On a DRA pool, nvidia.com/gpu is advertised by nothing, and a container must list the pod's claim."""
    cluster = add_pool("      allocation: dra\n").replace('kubernetesVersion: "1.33"', 'kubernetesVersion: "1.34"')
    claimed = r(PLACED, ("      containers:", "      resourceClaims: [{name: gpu, resourceClaimTemplateName: second}]\n"
                                             "      containers:"))
    asks_resource = findings(run, tmp_path, claimed, context=cluster)
    assert [f for f in asks_resource if f[0].startswith("placement")] == [
        ("placement-without-gpu-request", "14:7"), ("placement-request-unfit", "19:15")]
    uses_claim = r(claimed, ("            limits:\n              nvidia.com/gpu: 1\n", "            claims: [{name: gpu}]\n"))
    assert [f for f in findings(run, tmp_path, uses_claim, context=cluster) if f[0].startswith("placement")] == []


def test_kai_schedulers_gpu_memory_annotation_counts_too(run, tmp_path):
    """KAI's gpu-memory (MiB) on the pod template: 6000 MiB do not fit a 4 GB slice; 3000 do."""
    def workload(mib):
        return r(PLACED, ("    metadata: {labels: {app: any}}\n",
                          f"    metadata: {{labels: {{app: any}}, annotations: {{gpu-memory: '{mib}'}}}}\n"))
    got = findings(run, tmp_path, workload(6000), context=add_pool(SLICED))
    assert [f for f in got if f[0] == "shared-slice-too-small"] == [("shared-slice-too-small", "10:62")]
    assert [f for f in findings(run, tmp_path, workload(3000), context=add_pool(SLICED))
            if f[0] == "shared-slice-too-small"] == []


def test_every_case_is_collected():
    """A case added after the parametrized tests were defined would be counted by test_every_rule_has_a_case and
    never run: the parameters must be the final tables."""
    for test, table in ((test_profile_rule_fires, PROFILE_CASES), (test_document_rule_fires, DOC_CASES)):
        assert list(test.pytestmark[0].args[1]) == sorted(table)


def messages(run, tmp_path, text, context=False):
    (tmp_path / "case.yaml").write_text(text)
    args = ["validate", "case.yaml", "--output", "json"]
    if context:
        (tmp_path / "cluster.yaml").write_text(context)
        args += ["--profile", "cluster.yaml"]
    return {f["rule"]: (f["message"], f["fix"]) for f in json.loads(run(*args, cwd=tmp_path).output)["findings"]}


def test_replica_limits_name_the_limit_its_source_and_the_fix_from_the_data(run, tmp_path):
    mps = messages(run, tmp_path, PROFILE_CASES["mps-replicas-over-limit"][0])["mps-replicas-over-limit"]
    assert mps == ("nodePools[0].sharing.replicas is 49; MPS on A100-40GB allows at most 48 clients per GPU",
                   "Lower replicas to the limit (48 from compute capability 7.5, 16 below), or use time-slicing.")
    gke = messages(run, tmp_path, PROFILE_CASES["gke-shared-clients-over-limit"][0])["gke-shared-clients-over-limit"]
    assert gke == ("nodePools[0].sharing.replicas is 49; GKE shares a GPU between at most 48 clients per GPU",
                   "Lower replicas to 48 or fewer.")


def test_a_gpu_memory_annotation_that_is_no_quantity_is_not_judged(run, tmp_path):
    for value in ("lots", "12 Gi", "-3Gi"):
        workload = r(PLACED, ("    gengpu.dev/pool: second\n", f"    gengpu.dev/pool: second\n    gengpu.dev/gpu-memory: '{value}'\n"))
        assert "shared-slice-too-small" not in messages(run, tmp_path, workload, context=add_pool(SLICED))
    big = r(PLACED, ("    gengpu.dev/pool: second\n", "    gengpu.dev/pool: second\n    gengpu.dev/gpu-memory: 4.5G\n"))
    assert messages(run, tmp_path, big, context=add_pool(SLICED))["shared-slice-too-small"][0] == (
        "Deployment any needs 4.5G of GPU memory, but a slice of pool second has 4.0 GB (16 GB T4 / 4 replicas)")
