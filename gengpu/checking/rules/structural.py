"""Findings that come from parsing, schemas and the real tools rather than from a rule module's check."""

from gengpu.checking.rules.base import USAGE, Rule
from gengpu.checking.targets import DEVICE_PLUGIN_CONFIG, LIVE_CLUSTER, MIG_PARTED_CONFIG, OBJECT, OVERLAY, PROFILE

RULES = [
    Rule("yaml-syntax", "error", "The file is not valid YAML.", "Fix the YAML at the reported position.",
         "Nothing in a file that does not parse can be checked; the parser's own message says what it expected.",
         "YAML 1.1 (libyaml), as the Go YAML libraries of kubectl and NVIDIA's parsers read it", applies_to=PROFILE),
    Rule("yaml-limit", "error", "A file beyond what gengpu reads: too large, nested too deep, or aliases that expand "
         "without bound.", "Split or flatten the file; write values out instead of aliases of aliases.",
         "A few hundred bytes of nested aliases (a 'billion laughs') expand to gigabytes; gengpu stops such a "
         "document and reports it instead of running out of time or memory. Files over 16 MiB "
         "(GENGPU_MAX_FILE_BYTES) and values nested deeper than 100 levels are refused the same way: no "
         "Kubernetes object or GPU config comes near either.", "gengpu; YAML 1.1 aliases", applies_to=PROFILE),
    Rule("yaml-tag", "error", "An explicit YAML tag gengpu cannot honour, or a value that does not match its tag.",
         "Remove the tag, or write a value of the tagged type.",
         "`!!int abc` or `!!bool maybe` is a value the Go YAML libraries refuse; custom tags (`!Ref`) mean "
         "nothing to Kubernetes.", "YAML 1.1 tag repository", applies_to=PROFILE),
    Rule("yaml-merge", "error", "A merge key (<<) whose value is not a mapping.", "Merge an &anchor of a mapping.",
         "Merge keys are resolved as kubectl resolves them: explicit keys win over merged ones. Merging a list "
         "or a scalar is an error there too.", "YAML 1.1 merge key type", applies_to=PROFILE),
    Rule("yaml-duplicate-key", "error", "A mapping repeats a key.", "Remove one of the two keys.",
         "YAML parsers disagree on which of two equal keys wins (kubectl keeps the last, others refuse the file), so "
         "a duplicate key is a setting nobody can predict.", "YAML 1.2 spec: mapping keys are unique",
         applies_to=PROFILE),
    Rule("file-unreadable", "error", "The file cannot be read as UTF-8 text.", "Check the path and the encoding.",
         "gengpu reads profiles and manifests as UTF-8 YAML (UTF-16 and UTF-32 with a byte-order mark, as YAML "
         "allows); the finding points at the first byte that is not text.", "gengpu", applies_to=PROFILE),
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
    Rule("device-plugin-unknown-field", "warning", "A key the device plugin does not know.",
         "Fix the key's spelling or its place (sharing.timeSlicing.resources, not sharing.resources).",
         "The plugin ignores unknown keys without a word, so a misplaced or misspelt setting never applies while "
         "the rest of the config does: a warning (the plugin runs; part of what is written silently does nothing).",
         "NVIDIA/k8s-device-plugin api/config/v1 (pain point TS-03)",
         applies_to=DEVICE_PLUGIN_CONFIG),
    Rule("mig-parted-config-schema", "error", "A mig-parted config that mig-parted refuses.",
         "Follow the fix line; see schemas/mig-parted-config.schema.json.",
         "mig-parted refuses a file without version v1, an empty mig-configs, an entry without devices or "
         "mig-enabled, mig-devices missing when mig-enabled is true or present when it is false.",
         "NVIDIA/mig-parted api/spec/v1", applies_to=MIG_PARTED_CONFIG),
    Rule("mig-parted-unknown-field", "error", "A key mig-parted does not know.", "Remove or rename it.",
         "mig-parted refuses unknown keys ('unexpected field').", "NVIDIA/mig-parted api/spec/v1",
         applies_to=MIG_PARTED_CONFIG),
    Rule("kustomize-build", "error", "The overlay does not build with kustomize.", "Run `kustomize build` on it.",
         "Argo CD builds the overlay with kustomize; if it does not build here it will not sync. (gengpu renders its "
         "own overlays without kustomize, exactly as kustomize does; an overlay you extended through local/ goes to "
         "kustomize.)", "kustomize v5.8.1", applies_to=OVERLAY),
    Rule("overlay-kind-no-schema", "error", "A rendered resource of a kind gengpu has no schema for.",
         "Add its CRD to scripts/crd-sources.yaml and run scripts/sync-schemas, or remove the resource.",
         "In an overlay every resource is checked: a kind without a schema is an error there, never a skip (in "
         "other files it is only object-no-schema, an info).", "gengpu", applies_to=OVERLAY),
    Rule("not-generated-file", "error", "A file of yours, or a symlink, where gengpu wants to write.",
         "Move or rename your file; put your own patches in overlays/<name>/local/.",
         "gengpu only overwrites regular files that carry its header, and never writes through a symlink: a build "
         "that would do either stops before it writes anything.", "gengpu", applies_to=OVERLAY),
    Rule("overlay-orphaned", "error", "A folder in overlays/ that no profile generates, which gengpu will not "
         "remove because something in it is not gengpu's.",
         "Delete the folder yourself if the cluster is gone (move your own files first), restore its profile, or "
         "make a copied overlay a profile of its own.",
         "gengpu removes the folder of a deleted profile only when every entry in it is a file gengpu wrote there, "
         "unchanged since (the digest in its header says so). A folder with your files, edits, a local/ component or "
         "a copy of another overlay (cp -r) stays, and the build stops until you decide: Argo CD's ApplicationSet "
         "would otherwise keep syncing it.", "gengpu", applies_to=OVERLAY),
    Rule("generated-file-edited", "warning", "A generated file gengpu no longer writes was edited, so gengpu leaves "
         "it.", "Delete it if you do not need the change; keep changes of your own in local/.",
         "gengpu deletes a generated file it no longer produces only when it is exactly as gengpu wrote it.",
         "gengpu", applies_to=OVERLAY),
    Rule("build-interrupted", "error", "A build was killed while it wrote overlays.",
         "Run `gengpu build`: it finishes the interrupted writes first.",
         "gengpu writes through a journal (overlays/.gengpu-journal): until the next build completes it, the "
         "overlays on disk may be part old, part new, so validate and build --check report it.", "gengpu",
         applies_to=OVERLAY),
    Rule("gke-autoprovisioning-schema", "error", "A GKE auto-provisioning file gcloud would refuse.",
         "Keep to the keys gcloud accepts; see schemas/gke-autoprovisioning.schema.json.",
         "`gcloud container clusters update --autoprovisioning-config-file` refuses unknown keys ('following names are "
         "not recognised'), so a file with a misplaced key (autoprovisioning:, autoscalingProfile:) never applies.",
         "gcloud ValidateAutoprovisioningConfigFile; GKE API ResourceLimit", applies_to=OVERLAY),
    Rule("script-syntax", "error", "A generated script that bash cannot parse.", "Rebuild the overlay (`gengpu build`).",
         "Scripts beside an overlay (the az aks nodepool add command) are run by hand; a syntax error shows up only "
         "then. `bash -n` reads them without running anything.", "bash -n", applies_to=OVERLAY),
    Rule("object-malformed", "error", "A document that cannot be a Kubernetes object.",
         "Give it apiVersion and kind as strings and metadata as a mapping, or remove it.",
         "kubectl and Argo CD refuse the whole file when one document is a list, a scalar, or an object whose kind "
         "or apiVersion is missing or not a string; gengpu reports it and checks the other documents.",
         "Kubernetes API conventions (TypeMeta, ObjectMeta)", applies_to=OVERLAY),
    Rule("gpu-configmap-invalid", "error", "A ConfigMap named for GPU configs holds a value that is not one.",
         "Write the config as YAML under the key (`key: |`, indented, spaces not tabs), or rename the ConfigMap.",
         "The device plugin's config-manager and mig-manager read every key of the ConfigMap the operator names; "
         "a value that is not a config (invalid YAML, tabs, a scalar, nothing) makes the node's plugin fail to start "
         "('unable to parse config file') while the ConfigMap itself applies cleanly. gengpu takes a ConfigMap whose "
         "name has device-plugin, time-slicing, mig-parted, mig-config, mps or sharing in it as one meant for GPU "
         "configs.", "NVIDIA/k8s-device-plugin cmd/config-manager; NVIDIA/mig-parted cmd/nvidia-mig-manager",
         applies_to=DEVICE_PLUGIN_CONFIG),
    Rule("object-schema", "error", "A Kubernetes object its schema refuses: an unknown or misspelt field, a "
         "wrong type, a missing required field.", "Fix the field named in the message.",
         "The API server refuses such an object, or with non-strict field validation drops the unknown field "
         "without a word, so a misspelt setting (allowPrivilegedEscalation, a ClusterPolicy key) never applies. "
         "gengpu checks every object of a file against the Kubernetes schemas of the Kubernetes version "
         "(--kubernetes-version, the profile's, or 1.37) and the CRD schemas it ships, strict about unknown fields "
         "as kubectl's default strict validation is. Explicit nulls pass, as the API server accepts them.",
         "kubernetes-validate (Kubernetes OpenAPI); CRDs of schemas/crds/SOURCES.yaml", applies_to=OBJECT),
    Rule("object-field-undocumented", "warning", "A field the schema gengpu has of a platform's own kind does not "
         "list: the platform may have added it since, or it is misspelt.",
         "Check the field against the platform's current reference (GKE: the ComputeClass CRD reference); if it is "
         "there, nothing is wrong, and the warning goes when gengpu's schema is refreshed.",
         "Some kinds come from the platform itself, with no CRD published anywhere (GKE's ComputeClass). gengpu's "
         "schema for them is what a cluster served on a known day, and the platform adds fields between releases "
         "(ComputeClass gained allocationStrategyDefaults, buffers and taintConfig after it). An unknown field there "
         "is reported with the date of the schema, as a warning: an error would fail CI on a valid file. Wrong "
         "types and values stay errors (object-schema).",
         "schemas/documented/ (scripts/crd-sources.yaml `documented:`)", applies_to=OBJECT),
    Rule("snapshot-cluster-mismatch", "error", "No node of the snapshot belongs to a pool of the profiles checked: "
         "the snapshot is of another cluster, or the nodes lack their pools' labels.",
         "Check the profile that describes this cluster (gengpu check PROFILE --snapshot FILE), or the nodes' "
         "gengpu.dev/pool labels.",
         "gengpu check maps each node to a pool by the labels its pools write. A snapshot in which no node maps to "
         "any pool says nothing about the profile: comparing them would report every GPU node as unclaimed.",
         "gengpu", applies_to=LIVE_CLUSTER),
    Rule("snapshot-incomplete", "error", "The snapshot lacks what the checks need (no Node), or a kind could not be "
         "read (RBAC, a CRD not installed).",
         "Capture with `gengpu snapshot` (or kubectl get nodes,... -o yaml) with the read-only role gengpu "
         "generates (gengpu-check); the message names what is missing.",
         "Each check rests on objects of a kind: nodes for every promise, ConfigMaps for sharing configs, "
         "ResourceSlices for DRA pools, ClusterPolicies for the operator. A kind the capture could not read is "
         "named, and the checks that need it are left out rather than reporting everything as missing.",
         "gengpu", applies_to=LIVE_CLUSTER),
    Rule("metrics-file-invalid", "error", "A metrics recording gengpu rightsize cannot read: not OpenMetrics, a "
         "sample without its timestamp, or none of dcgm-exporter's GPU metrics.",
         "Record the samples as OpenMetrics with a timestamp on every sample and a final '# EOF' line (the format "
         "`promtool tsdb create-blocks-from openmetrics` loads), or point --prometheus at the server.",
         "A recording stands in for a Prometheus server: gengpu aggregates its samples over the window exactly as "
         "PromQL would. Without the time of each sample there is no window and no coverage, so such a file is "
         "refused rather than read as a single instant.", "OpenMetrics 1.0 (prometheus_client's parser)",
         applies_to=USAGE),
    Rule("usage-series-unjoined", "info", "dcgm-exporter series of nodes gengpu cannot put in a pool of the "
         "profile: nodes gone from the cluster, nodes of no pool, or series without the node label.",
         "Capture the snapshot while the nodes run (or from the same cluster), size a window that starts after "
         "nodes left, and keep dcgm-exporter's Hostname label (no --no-hostname).",
         "Series are joined to pools through the node: dcgm-exporter's Hostname (hostname in later releases) is the "
         "Kubernetes node name, and the node's labels say its pool. Series that cannot be joined are left out of "
         "every pool's figures, and this says which, so a sizing never rests on data silently dropped. Nodes gone "
         "from the cluster (Karpenter consolidates empty GPU nodes within minutes) often ran the largest jobs of the "
         "window: no pool whose GPU model they had gets a proposal until they are joined.",
         "NVIDIA/dcgm-exporter internal/pkg/hostname/hostname.go", applies_to=USAGE),
    Rule("baseline-accepted", "info", "Findings a baseline accepted: counted, not shown.",
         "Nothing to do now; fix them over time and remove their entries (`gengpu validate --no-baseline` lists them).",
         "A repository that adopts gengpu usually has findings older than the tool. A baseline (`gengpu validate "
         "--write-baseline FILE`, then `--baseline FILE` or `baseline: FILE` in .gengpu.yaml) accepts them "
         "explicitly, so CI passes on the old and fails on anything new. Findings are recognised by a fingerprint of "
         "their rule, file and message without line numbers: moving lines or reformatting a file keeps them "
         "accepted.", "gengpu", applies_to=OVERLAY),
    Rule("baseline-stale", "info", "A baseline entry whose finding no longer occurs in the files checked.",
         "Remove the entry from the baseline (or write the baseline again with --write-baseline).",
         "An entry left after its finding is fixed would silently accept the same mistake if it came back. Entries "
         "of files outside the run (a pre-commit run on a few files, one shard of a fleet) are not judged.",
         "gengpu", applies_to=OVERLAY),
    Rule("object-no-schema", "info", "A Kubernetes object of a kind gengpu has no schema for: its fields are not "
         "checked.", "Nothing to fix; GPU rules still look at its pod templates. Ask for the CRD to be added to "
         "scripts/crd-sources.yaml.",
         "gengpu ships the schemas of Kubernetes and of the CRDs around GPUs (NVIDIA, Karpenter, GKE, Azure, "
         "Prometheus Operator, Argo CD and workload operators); for any other kind it says so instead of pretending "
         "the object was checked.", "gengpu", applies_to=OBJECT),
    Rule("kind-not-served", "error", "An object of a kind no API serves: a kind its built-in Kubernetes group does "
         "not have (NodePool in v1), a kind a group gengpu knows in full does not have (karpenter.sh NodeGroup), a kind "
         "served in another group (kubeflow.org TrainJob: trainer.kubeflow.org), or a cloud API's REST resource written as "
         "a Kubernetes object (container.googleapis.com/v1 NodePool).",
         "Use a kind and apiVersion the API serves (`kubectl api-resources` lists them; check the spelling of the "
         "kind): karpenter.sh/v1 NodePool for Karpenter, "
         "container.cnrm.cloud.google.com/v1beta1 ContainerNodePool (Config Connector) for a GKE node pool as a "
         "Kubernetes object, a gcloud script or Terraform for the REST API.",
         "kubectl apply looks each object's kind up in the API server's discovery and refuses one it does not serve "
         "(\"no matches for kind ... ensure CRDs are installed first\"); a GitOps sync fails on it. The built-in "
         "groups serve a fixed set of kinds per Kubernetes release, the groups of NVIDIA's, Karpenter's and the "
         "other operators gengpu knows serve the kinds of their CRDs (gengpu/data/kinds.yaml servedKinds; Kubeflow "
         "Trainer v2's kinds only in trainer.kubeflow.org, never in kubeflow.org), and "
         "*.googleapis.com is a REST API, never a Kubernetes group. A CRD in the same repository that defines the "
         "kind makes it served.", "Kubernetes API discovery; gengpu/data/kinds.yaml servedKinds", applies_to=OBJECT),
    Rule("object-cel", "error", "A custom resource that one of its CRD's CEL rules (x-kubernetes-validations) "
         "refuses.", "Fix the field named in the message; the message is the CRD's own.",
         "CRDs state rules JSON Schema cannot (Karpenter: the label karpenter.sh/nodepool is restricted, a "
         "requirement's operator and values must agree, consolidateAfter must be set with WhenEmpty). kubeconform "
         "does not evaluate them, so a file can pass it and still be refused by the API server. gengpu runs them "
         "with the API server's own code (k8s.io/apiextensions-apiserver, in tools/celcheck), after defaulting the "
         "object from its schema as the API server does on create.",
         "the CRD's x-kubernetes-validations; k8s.io/apiextensions-apiserver v0.37.2", applies_to=OBJECT),
    Rule("object-cel-not-evaluated", "info", "CEL rules were not evaluated: celcheck is not installed.",
         "Run scripts/install-tools (builds tools/celcheck into ./bin), or set GENGPU_CELCHECK to the binary.",
         "Schema checks ran; only the CRD's CEL rules were skipped, and gengpu says so rather than pass them.",
         "gengpu", applies_to=OBJECT),
    Rule("not-recognized", "info", "Files of the run that hold nothing gengpu judges, said once for all of them.",
         "Nothing to fix. `gengpu validate -v` says what each file was taken for; a values file of an NVIDIA chart that "
         "nothing names (no HelmRelease, Application, helmCharts entry or Chart.yaml beside it) is judged when it "
         "holds the line `# gengpu: chart=gpu-operator` (or nvidia-device-plugin, nvidia-dra-driver-gpu, "
         "optionally @VERSION).",
         "A pre-commit hook and a PR job hand gengpu every YAML file of a repository. What each file is, is decided "
         "from evidence before any rule sees it: its name and place (kustomize's files, a Helm chart's Chart.yaml, "
         "templates and values, CI and tool files), what names it (a kustomization's resources, patches and "
         "generators, a helmCharts entry), and its content (Kubernetes objects, SOPS-encrypted files, NVIDIA's config "
         "formats by their own markers). Chart files, templates, other charts' values, encrypted files, kustomize's "
         "own inputs and other tools' files are not judged, whatever they hold.", "gengpu (loading/roles.py)",
         applies_to=OVERLAY),
]
