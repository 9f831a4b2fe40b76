"""What each file of a run is, decided once, from evidence, before any rule sees it.

A pre-commit hook and a PR job hand gengpu every YAML file of a repository. A kustomization without apiVersion, a
chart's values, a patch that holds only the fields it changes, a Chart.yaml, a GitLab CI file: each is valid as
what it is and wrong as anything else. The evidence, strongest first:

  1. the file's name and place: kustomize's own file names, a Helm chart's files (the nearest Chart.yaml above:
     Chart.yaml, templates/, the chart's own values.yaml, values*.yaml and ci/ values beside it), well-known files
     of other tools (CI, mkdocs, pre-commit, Go testdata), template file names (*.tmpl.yaml);
  2. what names it: a kustomization of the repository lists it as a resource, a patch, a generator's input, one of
     kustomize's own configurations, or a helmCharts entry's values (repository.py);
  3. its content: Kubernetes objects by apiVersion and kind; SOPS-encrypted files by their `sops` metadata; plain
     files by a documented shape (shapes.py: NVIDIA's config formats by their own markers, NVIDIA's chart values by
     keys only those charts have); a `# gengpu: chart=NAME[@VERSION]` line for values nothing else names.

Anything else is not judged, and a run says so once. A role is recorded on every document (Document.role); rules
declare the roles they judge (checking/rules/base.py), so no rule guesses what a file is.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from gengpu.loading import shapes
from gengpu.loading.folders import KUSTOMIZATION_NAMES
from gengpu.loading.repository import relative

# Judged
PROFILE = "profile"
KUSTOMIZATION = "kustomization"
PATCH = "kustomize patch"
RESOURCE = "kustomize resource"
OBJECT = "object"
NVIDIA_CONFIG = "NVIDIA config"
VALUES = "chart values"
DOCUMENTED = "documented format"  # a Prometheus rule file, a Grafana dashboard, GKE's auto-provisioning file
FRAGMENT = "fragment"  # a piece of a manifest (containers that ask for GPUs), as docs and issues quote them
# Not judged
CHART_FILE = "chart file"
CHART_DEFAULTS = "chart defaults"
TEMPLATE = "template"
ENCRYPTED = "encrypted"
KUSTOMIZE_INPUT = "kustomize input"
OTHER = "other"
NOT_JUDGED = (CHART_FILE, CHART_DEFAULTS, TEMPLATE, ENCRYPTED, KUSTOMIZE_INPUT, OTHER)
# what the one line of a run says of the files it did not judge, by role
SAID = {CHART_FILE: "Helm chart files", CHART_DEFAULTS: "charts' own values.yaml", TEMPLATE: "templates",
        ENCRYPTED: "SOPS-encrypted files", KUSTOMIZE_INPUT: "kustomize's own inputs",
        OTHER: "files of other tools", VALUES: "values of other charts"}

# Files of other tools, by name or folder: never manifests, whatever their content.
_OTHER_NAMES = {
    ".gitlab-ci.yml": "GitLab CI", "mkdocs.yml": "mkdocs", "mkdocs.yaml": "mkdocs",
    ".pre-commit-config.yaml": "pre-commit", ".pre-commit-hooks.yaml": "pre-commit",
    ".goreleaser.yml": "GoReleaser", ".goreleaser.yaml": "GoReleaser", ".golangci.yml": "golangci-lint",
    ".golangci.yaml": "golangci-lint", "codecov.yml": "Codecov", ".codecov.yml": "Codecov",
    ".yamllint": "yamllint", ".yamllint.yaml": "yamllint", ".yamllint.yml": "yamllint", ".sops.yaml": "SOPS",
    "docker-compose.yml": "Docker Compose", "docker-compose.yaml": "Docker Compose", "compose.yaml": "Docker Compose",
    "compose.yml": "Docker Compose", "Taskfile.yml": "Task", "Taskfile.yaml": "Task", ".readthedocs.yaml": "Read the Docs",
    ".readthedocs.yml": "Read the Docs", "cloudbuild.yaml": "Cloud Build", "azure-pipelines.yml": "Azure Pipelines",
    ".travis.yml": "Travis CI", "dependabot.yml": "Dependabot", "renovate.yaml": "Renovate",
    "helmfile.yaml": "helmfile", "Chart.lock": "Helm", "index.yaml": "a Helm repository index",
    "ct.yaml": "chart-testing", "chart-testing.yaml": "chart-testing", "lintconf.yaml": "chart-testing",
    ".gengpu.yaml": "gengpu's settings",
}
_OTHER_FOLDERS = {".github": "GitHub", ".gitlab": "GitLab CI", ".circleci": "CircleCI", "testdata": "Go test data",
                  ".devcontainer": "dev containers", ".buildkite": "Buildkite", ".tekton": "Tekton pipelines"}
_PATCH_NAME = re.compile(r"(^|[-_.])patch(es)?([-_.]|$)", re.I)  # manager_auth_proxy_patch, patch-gpu
# A whole value that is a substitution variable: ${VAR}, ${VAR:-default}, ${VAR:=default} (Flux's postBuild.substitute,
# drone/envsubst syntax), or {VAR} (test data a program fills in): the value is in place only when it is applied.
SUBSTITUTED = re.compile(r"\$\{[A-Za-z_][A-Za-z0-9_]*(?:(?::?[-=+?])[^}]*)?\}")
FILLED_IN = re.compile(r"\{[A-Z][A-Z0-9_]*\}")
_TEMPLATE_NAME = re.compile(r"\.(tmpl|tpl|template|gotmpl|j2|jinja2?)(\.|$)", re.I)
_CHART_FILES = {"Chart.yaml", "Chart.lock", "requirements.yaml", "requirements.lock", "values.schema.json"}
_VALUES_NAME = re.compile(r"^values([-._].*)?\.ya?ml$")
_MARKER = re.compile(r"^#\s*gengpu:\s*chart=([A-Za-z0-9._-]+)(?:@(\S+))?\s*$", re.M)
_OBJECT_TEXT = (re.compile(r"^apiVersion:\s*\S", re.M), re.compile(r"^kind:\s*\S", re.M))
_NVIDIA_TEXT = re.compile(r"^(mig-configs|sharing|flags):", re.M)


@dataclass(frozen=True)
class Role:
    """What a document (or a whole file) is, and the evidence."""

    name: str
    why: str
    chart: str | None = None  # VALUES: whose chart
    version: str | None = None  # VALUES: the version its wrapper or marker pins
    uses: tuple = ()  # PATCH, RESOURCE: how kustomizations name the file (repository.Use)
    shape: dict | None = None  # NVIDIA_CONFIG, DOCUMENTED, VALUES by keys: the shape that matched

    @property
    def judged(self) -> bool:
        if self.name == VALUES:
            from gengpu.checking.wrapped import known_chart

            return known_chart(self.chart)
        return self.name not in NOT_JUDGED

    def said(self) -> str:
        return f"{self.name}: {self.why}"


@dataclass
class Decided:
    """The roles of one file: per document, and the file's own where no document was read."""

    roles: list[Role]  # one per document
    file: Role  # the file as a whole (its first document's role, or why nothing in it was read)
    findings: list  # the load findings that are about something gengpu judges (the others are not gengpu's)


def _by_place(path: Path, repo) -> Role | None:
    """A role from the file's name and place alone."""
    name = path.name
    if name in KUSTOMIZATION_NAMES:
        return Role(KUSTOMIZATION, "kustomize reads a file of this name")
    if name in _OTHER_NAMES:
        return Role(OTHER, f"a {_OTHER_NAMES[name]} file")
    rel = PurePosixPath(relative(path, repo.root))
    for part in rel.parts[:-1]:
        if part in _OTHER_FOLDERS:
            return Role(OTHER, f"in {part}/ ({_OTHER_FOLDERS[part]})")
    if _TEMPLATE_NAME.search(name):
        return Role(TEMPLATE, "named as a template")
    chart = repo.chart_of(path)
    if chart is None:
        return None
    chart_name = _chart_name(chart)
    inside = PurePosixPath(relative(path, chart))
    said = f"the {chart_name} chart at {relative(chart, repo.root) or '.'}"
    if len(inside.parts) == 1 and name in _CHART_FILES:
        return Role(CHART_FILE, f"the metadata of {said}")
    if inside.parts[0] in ("templates", "tests", "charts") and len(inside.parts) > 1:
        return Role(CHART_FILE, f"in {inside.parts[0]}/ of {said} (Go templates and helm tests)")
    if inside.parts[0] == "crds":
        return None  # plain CRDs Helm installs first: objects
    if inside == PurePosixPath("values.yaml"):
        return Role(CHART_DEFAULTS, f"the values.yaml of {said}: it defines the chart's keys")
    if _VALUES_NAME.match(name) and len(inside.parts) == 1 or inside.parts[0] == "ci" and len(inside.parts) == 2:
        return Role(VALUES, f"values beside {said}", chart=chart_name)
    return None


def _chart_name(folder: Path) -> str:
    from gengpu.loading.reading import read_text

    text = read_text(folder / "Chart.yaml") or ""
    m = re.search(r"^name:\s*['\"]?([^'\"\s#]+)", text, re.M)
    return m.group(1) if m else folder.name


def _by_use(path: Path, repo) -> Role | None:
    """A role from what names the file: a kustomization's patches, resources, generators or helmCharts."""
    from gengpu.loading import repository as R

    uses = repo.uses(path)
    if not uses:
        return None
    said = "; ".join(sorted({u.says(repo.root) for u in uses}))
    hows = {u.how for u in uses}
    if R.PATCH in hows:
        return Role(PATCH, said, uses=tuple(u for u in uses if u.how == R.PATCH))
    if R.RESOURCE in hows:
        return Role(RESOURCE, said, uses=tuple(u for u in uses if u.how == R.RESOURCE))
    if R.CHART_VALUES in hows:
        use = next(u for u in uses if u.how == R.CHART_VALUES)
        return Role(VALUES, said, chart=use.chart, version=use.version)
    # a generator's input or one of kustomize's configurations: data, though an NVIDIA config by its own markers
    return Role(KUSTOMIZE_INPUT, said)


def _needs_index(docs) -> bool:
    """Whether what names the file could change what it is: objects may be resources or patches, plain mappings a
    helmCharts entry's values. NVIDIA's own config formats are what they are wherever they sit."""
    for doc in docs:
        data = doc.data
        if isinstance(data, dict) and ("apiVersion" in data or "kind" in data or shapes.match(data) is None):
            return True
    return not docs


def _sops(docs) -> bool:
    return any(isinstance(d.data, dict) and isinstance(d.data.get("sops"), dict) and
               {"mac", "lastmodified", "version"} & set(d.data["sops"]) for d in docs)


def _looks_judged(text: str) -> str | None:
    """What a file that did not parse says it is, from its text: a Kubernetes object, or an NVIDIA config."""
    if any(p.search(text) for p in _OBJECT_TEXT):
        return "its text has a top-level apiVersion or kind"
    if _NVIDIA_TEXT.search(text):
        return "its text has top-level keys of NVIDIA's config formats"
    return None


def decide(path: Path, docs: list, findings: list, text: str | None, repo) -> Decided:
    """The roles of one file's documents (docs, as the loader read them, and the findings that stopped it)."""
    context = _by_place(path, repo)
    if context is None and (findings or _needs_index(docs)):
        context = _by_use(path, repo)
    if context is None and (_PATCH_NAME.search(path.stem) or path.parent.name == "patches"):
        # named or kept as a patch, and no kustomization applies it (kubebuilder's config/crd/patches): no target
        context = Role(PATCH, "named as a kustomize patch" if _PATCH_NAME.search(path.stem) else
                       "in a patches/ folder", uses=())
    if findings:
        return _unread(docs, findings, text or "", context)
    if context is not None and not context.judged and context.name != KUSTOMIZE_INPUT:
        return Decided([context] * len(docs), context, [])
    if _sops(docs):
        role = Role(ENCRYPTED, "SOPS-encrypted (its `sops` metadata): Flux or sops decrypts it when it applies")
        return Decided([role] * len(docs), role, [])
    marker = _MARKER.search(text or "")
    objects = any(isinstance(d.data, dict) and "apiVersion" in d.data and "kind" in d.data for d in docs)
    roles = [_content(doc.data, context, marker, objects) for doc in docs]
    if not roles:
        return Decided([], context or Role(OTHER, "no documents"), [])
    return Decided(roles, next((r for r in roles if r.judged), roles[0]), [])


PROFILE_OTHER_KINDS = ("Placement",)  # gengpu's own local-config objects in placement components: not profiles


def is_profile(data) -> bool:
    """A GPUProfile, or something meant as one (gengpu's apiVersion with a misspelt kind)."""
    return isinstance(data, dict) and (data.get("kind") == "GPUProfile" or (
        str(data.get("apiVersion", "")).startswith("gengpu.dev/") and data.get("kind") not in PROFILE_OTHER_KINDS))


def content_role(data) -> Role:
    """The role of a document loading never saw as a file (gengpu's own overlay files, an embedded config): by its
    content alone."""
    return _content(data, None, None, isinstance(data, dict) and "apiVersion" in data and "kind" in data)


def _content(data, context: Role | None, marker, objects: bool) -> Role:
    """A document's role from what it holds, in its file's context."""
    if context is not None and context.name == KUSTOMIZE_INPUT:
        shape = shapes.match(data)  # a generator's input is data: judged only as a format gengpu reads
        if shape is None:
            return context
        context = None
    if isinstance(data, dict) and "apiVersion" in data and "kind" in data:
        if "$patch" in data:
            return Role(PATCH, "a strategic-merge patch ($patch)" + (f"; {context.why}" if context else ""),
                        uses=context.uses if context else ())
        if context is not None and context.name in (PATCH, RESOURCE, KUSTOMIZATION):
            return context
        metadata = data.get("metadata")
        if isinstance(metadata, str) and (SUBSTITUTED.fullmatch(metadata) or FILLED_IN.fullmatch(metadata)):
            # (kthena's converter templates: `metadata: ${MODEL_SERVING_TEMPLATE_METADATA}`)
            return Role(TEMPLATE, f"its metadata is the placeholder {metadata}: a template a program fills in")
        return Role(OBJECT, f"apiVersion {data['apiVersion']}, kind {data['kind']}")
    if not isinstance(data, dict):
        if objects:  # a list or a scalar among Kubernetes objects: kubectl refuses the file
            return Role(OBJECT, "a document in a file of Kubernetes objects")
        return Role(OTHER, "not a mapping") if context is None or context.judged else context
    if context is not None and context.name in (KUSTOMIZATION, VALUES):
        return context
    if "kind" in data or "apiVersion" in data:
        if objects:
            return Role(OBJECT, "a document in a file of Kubernetes objects")
        return Role(OTHER, "a kind or apiVersion without the other: not a Kubernetes object")
    shape = shapes.match(data)
    if shape is not None:
        if shape["subject"] == "helm-values":
            return Role(VALUES, f"its keys are the {shape['chart']} chart's own: {shape['why']}", chart=shape["chart"],
                        shape=shape)
        kind = NVIDIA_CONFIG if shape["subject"] in _NVIDIA_FORMATS else DOCUMENTED
        return Role(kind, shape["why"], shape=shape)
    if marker is not None:
        return Role(VALUES, f"its `# gengpu: chart={marker.group(1)}` line", chart=marker.group(1),
                    version=marker.group(2))
    from gengpu.checking.podspecs import find_pod_specs, uses_gpu

    if uses_gpu(find_pod_specs(data)) or isinstance(data.get("resources"), dict) and \
            uses_gpu([((), {"containers": [data]})]):
        return Role(FRAGMENT, "containers that ask for GPUs, without apiVersion and kind")
    if objects:
        return Role(OBJECT, "a document in a file of Kubernetes objects")
    return Role(OTHER, "no apiVersion and kind, and no format gengpu reads")


_NVIDIA_FORMATS = ("device-plugin-config", "mig-parted-config", "gpu-clients", "mig-parted-hooks", "dcgm-counters")


def _unread(docs, findings, text: str, context: Role | None) -> Decided:
    """A file the loader stopped: its finding counts where the file is something gengpu judges."""
    rules = {f.rule for f in findings}
    if context is not None and not context.judged and context.name != KUSTOMIZE_INPUT:
        return Decided([context] * len(docs), context, [])
    if rules & {"yaml-limit", "file-unreadable"}:
        role = context or Role(OTHER, "unreadable")
        return Decided([role] * len(docs), role, findings)  # gengpu's own limits: always said
    if context is not None and context.name in (KUSTOMIZATION, PATCH, RESOURCE):
        return Decided([context] * len(docs), context, findings)  # kustomize reads it and stops the same way
    if "{{" in text and "}}" in text:
        role = Role(TEMPLATE, "Go template actions ({{ }}): a template, YAML only once rendered")
        return Decided([role] * len(docs), role, [])
    looks = _looks_judged(text)
    if context is not None and context.name == VALUES and context.judged:
        return Decided([context] * len(docs), context, findings)
    foreign = any(f.rule == "yaml-tag" and ("unknown tag" in f.message or "cannot carry the tag" in f.message and
                                            "tag:yaml.org,2002:" not in f.message)
                  for f in findings)  # another tool's tags (!reference, !env_var): its file, unless an object's
    if looks and not (foreign and not all(p.search(text) for p in _OBJECT_TEXT)):
        role = Role(OBJECT, looks)
        return Decided([role] * len(docs), role, findings)
    role = Role(OTHER, "YAML gengpu cannot read (" + ", ".join(sorted(rules)) + ") and nothing says it is a "
                "Kubernetes object or a GPU config")
    return Decided([role] * len(docs), role, [])
