"""Findings that come from parsing, schemas and the real tools rather than from a rule module's check."""

from gengpu.checking.rules.base import Rule
from gengpu.checking.targets import CLUSTER_POLICY, DEVICE_PLUGIN_CONFIG, MIG_PARTED_CONFIG, OVERLAY, PROFILE

RULES = [
    Rule("yaml-syntax", "error", "The file is not valid YAML.", "Fix the YAML at the reported position.",
         "Nothing in a file that does not parse can be checked; the parser's own message says what it expected.",
         "YAML 1.2 (ruamel.yaml)", applies_to=PROFILE),
    Rule("yaml-duplicate-key", "error", "A mapping repeats a key.", "Remove one of the two keys.",
         "YAML parsers disagree on which of two equal keys wins (kubectl keeps the last, others refuse the file), so "
         "a duplicate key is a setting nobody can predict.", "YAML 1.2 spec: mapping keys are unique",
         applies_to=PROFILE),
    Rule("file-unreadable", "error", "The file cannot be read as UTF-8 text.", "Check the path and the encoding.",
         "gengpu reads profiles and manifests as UTF-8 YAML.", "gengpu", applies_to=PROFILE),
    Rule("profile-schema", "error", "The profile does not match the profile JSON Schema.",
         "Follow the fix line; `gengpu schema` prints the schema, and editors use it through the modeline.",
         "Wrong types, unknown keys (often typos such as gpuPerNode), missing fields and values outside the allowed "
         "set are reported at their line before anything is compiled.", "schemas/profile.schema.json",
         applies_to=PROFILE),
    Rule("duplicate-profile-name", "error", "Two profiles have the same metadata.name.",
         "Give every profile its own name.", "The name names the overlay folder; two profiles would write one "
         "overlay.", "gengpu", applies_to=PROFILE),
    Rule("device-plugin-config-schema", "error", "A device-plugin config with a wrong type or value.",
         "Follow the fix line; see schemas/device-plugin-config.schema.json.",
         "The plugin refuses the whole config on a type error (replicas: \"4\", renameByDefault: yes) and the node "
         "falls back to no config; values outside the allowed set (migStrategy, deviceListStrategy) stop the plugin "
         "at start-up.", "NVIDIA/k8s-device-plugin api/config/v1", applies_to=DEVICE_PLUGIN_CONFIG),
    Rule("device-plugin-unknown-field", "error", "A key the device plugin does not know.",
         "Fix the key's spelling or its place (sharing.timeSlicing.resources, not sharing.resources).",
         "The plugin ignores unknown keys without a word, so a misplaced or misspelt setting never applies. gengpu "
         "is stricter than the plugin here on purpose.", "NVIDIA/k8s-device-plugin api/config/v1 (pain point TS-03)",
         applies_to=DEVICE_PLUGIN_CONFIG),
    Rule("mig-parted-config-schema", "error", "A mig-parted config that mig-parted refuses.",
         "Follow the fix line; see schemas/mig-parted-config.schema.json.",
         "mig-parted refuses a file without version v1, an empty mig-configs, an entry without devices or "
         "mig-enabled, mig-devices missing when mig-enabled is true or present when it is false.",
         "NVIDIA/mig-parted api/spec/v1", applies_to=MIG_PARTED_CONFIG),
    Rule("mig-parted-unknown-field", "error", "A key mig-parted does not know.", "Remove or rename it.",
         "mig-parted refuses unknown keys ('unexpected field').", "NVIDIA/mig-parted api/spec/v1",
         applies_to=MIG_PARTED_CONFIG),
    Rule("clusterpolicy-schema", "error", "A ClusterPolicy field the CRD does not have or a wrong type.",
         "Fix the field; see schemas/crds/clusterpolicy-nvidia-v1.json.",
         "The API server prunes unknown ClusterPolicy fields silently, so a misspelt setting is dropped and the "
         "operator still reports ready.", "NVIDIA/gpu-operator clusterpolicies CRD (pain point OP-05)",
         applies_to=CLUSTER_POLICY),
    Rule("kustomize-build", "error", "The overlay does not build with kustomize.", "Run `kustomize build` on it.",
         "Argo CD builds the overlay with kustomize; if it does not build here it will not sync.",
         "kustomize v5.8.1", applies_to=OVERLAY),
    Rule("kubeconform", "error", "A rendered resource fails its schema.", "Fix the field named in the message.",
         "kubeconform -strict validates every rendered resource against the Kubernetes and CRD schemas; the API "
         "server would refuse or prune it.", "kubeconform v0.7.0", applies_to=OVERLAY),
    Rule("kubeconform-no-schema", "error", "A rendered resource of a kind with no schema.",
         "Add its CRD to scripts/crd-sources.yaml and run scripts/sync-schemas.",
         "A resource gengpu cannot validate is an error, never a silent skip.", "gengpu", applies_to=OVERLAY),
    Rule("not-generated-file", "error", "A file of yours where gengpu wants to write.", "Move or rename your file.",
         "gengpu only overwrites files that carry its header.", "gengpu", applies_to=OVERLAY),
    Rule("gke-autoprovisioning-schema", "error", "A GKE auto-provisioning file gcloud would refuse.",
         "Keep to the keys gcloud accepts; see schemas/gke-autoprovisioning.schema.json.",
         "`gcloud container clusters update --autoprovisioning-config-file` refuses unknown keys ('following names are "
         "not recognised'), so a file with a misplaced key (autoprovisioning:, autoscalingProfile:) never applies.",
         "gcloud ValidateAutoprovisioningConfigFile; GKE API ResourceLimit", applies_to=OVERLAY),
    Rule("script-syntax", "error", "A generated script that bash cannot parse.", "Rebuild the overlay (`gengpu build`).",
         "Scripts beside an overlay (the az aks nodepool add command) are run by hand; a syntax error shows up only "
         "then. `bash -n` reads them without running anything.", "bash -n", applies_to=OVERLAY),
    Rule("not-recognized", "info", "Nothing gengpu checks in this file.",
         "Point gengpu at profiles, device-plugin or mig-parted configs, ClusterPolicies or GPU workloads.",
         "The file holds no profile, GPU config, ClusterPolicy or GPU-requesting workload.", "gengpu",
         applies_to=OVERLAY),
]
