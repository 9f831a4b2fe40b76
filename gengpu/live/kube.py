"""The one module that talks to a Kubernetes API server: a read-only capture of what `gengpu check` needs, with the
user's kubeconfig as the official `kubernetes` client reads it. Lists are paginated (limit/continue) and each page
is cut down to what a snapshot keeps before the next is read, so memory grows with what is kept, not with the
answers; nothing is ever written; Secrets are never read. Each answer must arrive whole within TIMEOUT (a 429 or
503 asked again within it: gengpu/live/client.py), and the whole capture ends within GENGPU_KUBE_DEADLINE (default
300 s).
"""

from __future__ import annotations

import sys
import time

from gengpu.findings import UsageError
from gengpu.live.client import Api, continue_token, parse, reason
from gengpu.reporting.safe import shown

PAGE = 500
TIMEOUT = 30  # seconds per request: its whole answer
DEADLINE = 300  # seconds for a whole capture (GENGPU_KUBE_DEADLINE)
# (api group, version, plural, kind, namespaced): what a snapshot holds, in this order
CLUSTER_KINDS = [
    ("", "v1", "nodes", "Node"),
    ("nvidia.com", "v1", "clusterpolicies", "ClusterPolicy"),
    ("nvidia.com", "v1alpha1", "nvidiadrivers", "NVIDIADriver"),
    ("nvidia.com", "v1alpha1", "gpuclusters", "GPUCluster"),
    ("resource.k8s.io", "v1", "resourceslices", "ResourceSlice"),
    ("resource.k8s.io", "v1", "deviceclasses", "DeviceClass"),
    ("resource.k8s.io", "v1", "resourceclaims", "ResourceClaim"),
    ("karpenter.sh", "v1", "nodepools", "NodePool"),
    ("karpenter.sh", "v1", "nodeclaims", "NodeClaim"),
    ("resource.nvidia.com", "v1beta1", "computedomains", "ComputeDomain"),
    ("resource.k8s.io", "v1alpha3", "devicetaintrules", "DeviceTaintRule"),
]
# values no check reads, stepped over unbuilt when a list is parsed (jsontext.parse_unread): an object's
# managedFields (in every kind; as "[", never the "{" a ResourceSlice attribute of that name would take), a node's
# images and annotations, a container's env, mounts, ports, command and probes; kept() drops them all
_MANAGED = (("managedFields", "["),)
_CONTAINER_BULK = (("annotations", "{"), ("volumes", "["), ("volumeMounts", "["), ("env", "["), ("envFrom", "["),
                   ("ports", "["), ("command", "["), ("args", "["), ("livenessProbe", "{"), ("readinessProbe", "{"),
                   ("startupProbe", "{"))
UNREAD = {"nodes": _MANAGED + (("annotations", "{"), ("images", "[")), "pods": _MANAGED + _CONTAINER_BULK,
          "daemonsets": _MANAGED + _CONTAINER_BULK}
# a Warning event's message longer than this is cut (the kubelet's sandbox errors run to kilobytes)
EVENT_MESSAGE = 1000
CONFIGMAPS = ("gengpu-device-plugin-config", "gengpu-mig-parted-config")
GPU_PREFIXES = ("nvidia.com/gpu", "nvidia.com/mig-")


class Clock:
    """A capture's time: each request gets TIMEOUT or what is left of the deadline, whichever is less."""

    def __init__(self, budget: float | None = None):
        if budget is None:
            from gengpu import settings

            budget = settings.seconds("GENGPU_KUBE_DEADLINE", DEADLINE)
        self.budget, self.ends = budget, time.monotonic() + budget

    def timeout(self) -> float:
        left = self.ends - time.monotonic()
        if left <= 0:
            raise UsageError(self.message())
        return min(TIMEOUT, left)

    def ran_out(self) -> bool:
        """Whether a request that timed out was cut by the deadline rather than by its own TIMEOUT."""
        return time.monotonic() >= self.ends - 0.05

    def message(self) -> str:
        return (f"the capture did not finish within {self.budget:g} s (GENGPU_KUBE_DEADLINE sets the limit); the API "
                "server is slow to answer, or the cluster larger than the limit allows")


def _pages(api: Api, path: str, what: str, keep, progress, clock: Clock, query: dict | None = None) -> list[dict]:
    """What keep makes of every item of a paged LIST, page by page: a page's raw answer is dropped before the next
    is asked for, so memory grows with what is kept (a GPU pod's scheduling fields, not every pod's whole spec). A
    continue token that expired mid-way (410 Gone: the server compacted the revision the list was reading)
    restarts the list once from its first page, as kubectl does; pages already read are dropped, so nothing is
    counted twice."""
    from kubernetes.client.exceptions import ApiException

    from concurrent.futures import ThreadPoolExecutor

    def ask(token):
        return api.fetch(path, {"limit": PAGE, **(query or {}), **({"continue": token} if token else {})},
                         clock.timeout())

    # the next page is asked for while this one is parsed: the API server (another process) encodes it meanwhile
    with ThreadPoolExecutor(max_workers=1) as ahead:
        for attempt in (1, 2):
            kept_items, token, seen, upcoming = [], None, 0, None
            try:
                raw = ask(None)
                while True:
                    peeked = continue_token(raw)
                    upcoming = ahead.submit(ask, peeked) if peeked else None
                    data = parse(raw, UNREAD.get(what, _MANAGED))
                    del raw
                    items = data.get("items") or []
                    seen += len(items)
                    kept_items += [k for k in map(keep, items) if k is not None]
                    progress(what, seen)
                    token = (data.get("metadata") or {}).get("continue")
                    del data, items
                    if not token:
                        if upcoming is not None:
                            upcoming.cancel()
                        return kept_items
                    if upcoming is not None and token == peeked:
                        raw, upcoming = upcoming.result(), None
                    else:  # (the head read otherwise than the parse: the page the parse names)
                        if upcoming is not None:
                            _drop(upcoming)
                        raw, upcoming = ask(token), None
            except ApiException as exc:
                if upcoming is not None:
                    _drop(upcoming)
                if exc.status != 410 or token is None or attempt == 2:
                    raise
    return []  # (not reached)


def _drop(future) -> None:
    """A page asked for ahead that is not wanted: waited for (its connection back in the pool), its answer dropped."""
    try:
        future.result()
    except Exception:  # noqa: BLE001  (its failure is not this list's)
        pass


def _asks_for_gpu(pod: dict) -> bool:
    spec = pod.get("spec") or {}
    if spec.get("resourceClaims"):
        return True
    for group in ("containers", "initContainers"):
        for c in spec.get(group) or []:
            res = (c or {}).get("resources") or {}
            for section in ("limits", "requests"):
                if any(str(k).startswith(GPU_PREFIXES) for k in (res.get(section) or {})):
                    return True
    return False


def _stack(obj: dict) -> bool:
    """A pod or DaemonSet of NVIDIA's GPU stack (live/stack.py: by name, else by image)."""
    from gengpu.live import stack
    from gengpu.live.snapshot import Item

    item = Item(obj)
    if "template" in (obj.get("spec") or {}):  # a DaemonSet (a list's items carry no kind): its pods' spec
        template = obj["spec"]["template"] or {}
        item = Item({"metadata": {"name": (obj.get("metadata") or {}).get("name", "")},
                     "spec": template.get("spec") or {}})
    return stack.component(item) is not None


def _gpu_or_stack(pod: dict) -> bool:
    return _asks_for_gpu(pod) or _stack(pod)


def _is_gpu_node(node: dict) -> bool:
    from gengpu.live.pools import is_gpu_node
    from gengpu.live.snapshot import Item

    return is_gpu_node(Item(node))


def _gpu_event(event: dict, gpu_nodes: set) -> bool:
    """A Warning event about the GPU stack (its pods, DaemonSets, objects), a GPU node, or one whose words name
    the GPU; its message cut to EVENT_MESSAGE."""
    from gengpu.live.stack import GPU_WORDS, event_cause

    about = event.get("involvedObject") or {}
    kind, name = str(about.get("kind") or ""), str(about.get("name") or "")
    message = str(event.get("message") or "")
    keep = kind in ("ClusterPolicy", "NVIDIADriver", "GPUCluster", "ComputeDomain") or \
        (kind == "Node" and name in gpu_nodes) or \
        (kind in ("Pod", "DaemonSet") and _stack({"metadata": {"name": name}})) or \
        bool(GPU_WORDS.search(message)) or bool(event_cause(message))
    if keep and len(message) > EVENT_MESSAGE:
        event["message"] = message[:EVENT_MESSAGE] + " ..."
    return keep


def capture(context: str | None, namespace: str = "gpu-operator", progress_to_terminal: bool = True) \
        -> tuple[list[dict], set[str], list[str]]:
    """(objects, kinds captured, notes on what could not be read) of the cluster behind a kubeconfig context."""
    from urllib.parse import quote

    clock = Clock()
    api = Api(context)
    from kubernetes.client.exceptions import ApiException

    show = progress_to_terminal and sys.stderr.isatty()
    started = time.monotonic()

    def progress(what: str, n: int) -> None:
        if show:
            sys.stderr.write(f"\rgengpu: read {n} {what} ({time.monotonic() - started:.0f} s)   ")
            sys.stderr.flush()

    def keeping(api_version: str, kind: str, only=None):
        def keep(item):
            if not isinstance(item, dict) or (only is not None and not only(item)):
                return None
            return kept({**item, "apiVersion": api_version, "kind": kind}, same)
        return keep

    objects, captured, notes, same = [], set(), [], {}
    try:
        for group, version, plural, kind in CLUSTER_KINDS:
            api_version = f"{group}/{version}" if group else version
            path = f"/apis/{group}/{version}/{plural}" if group else f"/api/{version}/{plural}"
            try:
                objects += _pages(api, path, plural, keeping(api_version, kind), progress, clock)
            except ApiException as exc:
                if plural == "nodes":
                    rbac = "; `kubectl auth can-i list nodes` tells, and gengpu's gengpu-check ClusterRole grants it" \
                        if exc.status == 403 else ""
                    raise UsageError(f"cannot list nodes: {reason(exc)}{rbac}") from None
                if exc.status == 404:  # the kind is not installed (no Karpenter, no operator): there are none
                    captured.add(plural)
                else:
                    notes.append(f"{kind} ({api_version}): {reason(exc)}")
                continue
            captured.add(plural)
        try:
            objects += _pages(api, "/api/v1/pods", "pods", keeping("v1", "Pod", _gpu_or_stack), progress, clock)
            captured.add("pods")
        except ApiException as exc:
            notes.append(f"Pod (v1): {reason(exc)}")
        try:
            objects += _pages(api, "/apis/apps/v1/daemonsets", "daemonsets", keeping("apps/v1", "DaemonSet", _stack),
                              progress, clock)
            captured.add("daemonsets")
        except ApiException as exc:
            notes.append(f"DaemonSet (apps/v1): {reason(exc)}")
        gpu_nodes = {o["metadata"].get("name") for o in objects if o.get("kind") == "Node" and _is_gpu_node(o)}
        try:
            # Warning events only (the server filters), kept where they are about the GPU stack or a GPU node
            objects += _pages(api, "/api/v1/events", "events", keeping("v1", "Event", lambda e: _gpu_event(e, gpu_nodes)),
                              progress, clock, {"fieldSelector": "type=Warning"})
            captured.add("events")
        except ApiException as exc:
            notes.append(f"Event (v1): {reason(exc)}")
        for name in CONFIGMAPS:
            try:
                cm = api.get(f"/api/v1/namespaces/{quote(namespace, safe='')}/configmaps/{name}", {}, clock.timeout())
                objects.append(kept({**cm, "apiVersion": "v1", "kind": "ConfigMap"}))
                captured.add("configmaps")
            except ApiException as exc:
                if exc.status == 404:
                    captured.add("configmaps")  # looked, not there
                else:
                    notes.append(f"ConfigMap {namespace}/{name}: {reason(exc)}")
    except UsageError:
        raise
    except ApiException as exc:
        raise UsageError(f"the API server refused the capture: {reason(exc)}") from None
    except Exception as exc:  # noqa: BLE001  (urllib3: connection refused, TLS, timeouts): an environment error
        if clock.ran_out():
            raise UsageError(clock.message()) from None
        where = f"context {context!r}" if context else "the current context"
        import urllib3.exceptions

        cause = getattr(exc, "reason", exc)  # (a MaxRetryError carries the last try's error)
        # urllib3 derives a refused connection from its timeout error; refused is 'cannot reach', not slow
        slow = (isinstance(exc, TimeoutError) or isinstance(cause, (TimeoutError, urllib3.exceptions.TimeoutError))) \
            and not isinstance(cause, urllib3.exceptions.NewConnectionError)
        if slow:
            # our own TimeoutError names the request and bytes read; urllib3's only its pool and float timeout
            said = str(exc) if isinstance(exc, TimeoutError) else "no answer"
            raise UsageError(f"the API server of {where} did not answer whole in time: {shown(said)} (each "
                             f"request may take {TIMEOUT} s, the capture GENGPU_KUBE_DEADLINE)") from None
        raise UsageError(f"cannot reach the API server of {where}: "
                         f"{shown((str(exc).splitlines() or [''])[0][:300])}") from None
    finally:
        if show:
            sys.stderr.write("\n")
        api.close()
    return objects, captured, notes


# What a snapshot keeps of an object: what the checks read, and nothing that may carry a secret (annotations, a
# container's env, args and command, the operator's licensing and repository settings); managedFields never.
_POD_SPEC = ("nodeName", "nodeSelector", "affinity", "tolerations", "resourceClaims", "schedulerName",
             "priorityClassName", "runtimeClassName")
_CONTAINER = ("name", "image", "resources", "restartPolicy")  # (an init container's restartPolicy: a sidecar)
# a container's state as kubectl's STATUS reads it (state, last state with its exit code and message, restarts)
_CONTAINER_STATUS = ("name", "state", "lastState", "ready", "restartCount", "started")


def _shared(value, same: dict | None):
    """The one copy of a small mapping of scalars that many pods repeat (the default tolerations admission adds to
    every pod, a job's requests), so 60,000 pods hold a handful of them, not 180,000: kept objects are read, never
    changed."""
    if same is None or not isinstance(value, dict):
        return value
    try:
        return same.setdefault(tuple(value.items()), value)
    except TypeError:  # (a value that is itself a mapping or list: kept as it is)
        return value


def _container(c: dict, same: dict | None) -> dict:
    out = {k: c[k] for k in _CONTAINER if k in c}
    if isinstance(out.get("resources"), dict):
        out["resources"] = {k: _shared(v, same) for k, v in out["resources"].items()}
    return out


def kept(obj: dict, same: dict | None = None) -> dict:
    """What a snapshot keeps of an object; `same` (a capture's own) holds the one copy of small mappings its pods
    repeat."""
    meta = obj.get("metadata") if isinstance(obj.get("metadata"), dict) else {}
    out = {"apiVersion": obj.get("apiVersion"), "kind": obj.get("kind"),
           "metadata": {k: meta[k] for k in ("name", "namespace", "labels", "creationTimestamp", "ownerReferences")
                        if k in meta}}
    kind, spec, status = obj.get("kind"), obj.get("spec"), obj.get("status")
    if kind == "Pod" and isinstance(spec, dict):
        out["spec"] = {k: spec[k] for k in _POD_SPEC if k in spec}
        if isinstance(out["spec"].get("tolerations"), list):
            out["spec"]["tolerations"] = [_shared(t, same) for t in out["spec"]["tolerations"]]
        for group in ("initContainers", "containers"):
            if isinstance(spec.get(group), list):
                out["spec"][group] = [_container(c, same) for c in spec[group] if isinstance(c, dict)]
        if isinstance(status, dict):
            out["status"] = {k: status[k] for k in ("phase", "conditions", "reason") if k in status}
            for group in ("initContainerStatuses", "containerStatuses"):  # what kubectl's STATUS is made of
                if isinstance(status.get(group), list):
                    out["status"][group] = [{k: c[k] for k in _CONTAINER_STATUS if k in c}
                                            for c in status[group] if isinstance(c, dict)]
        if "deletionTimestamp" in meta:
            out["metadata"]["deletionTimestamp"] = meta["deletionTimestamp"]
        return out
    if kind == "DaemonSet":
        template = (spec or {}).get("template") if isinstance(spec, dict) else None
        pod_spec = (template or {}).get("spec") if isinstance(template, dict) else None
        if isinstance(pod_spec, dict):
            out["spec"] = {"template": {"spec": {
                **{k: pod_spec[k] for k in ("nodeSelector", "affinity", "tolerations") if k in pod_spec},
                "containers": [{k: c[k] for k in ("name", "image") if k in c}
                               for c in pod_spec.get("containers") or [] if isinstance(c, dict)]}}}
        if isinstance(status, dict):
            out["status"] = status
        return out
    if kind == "Event":
        return {**out, **{k: obj[k] for k in ("involvedObject", "reason", "message", "type", "count",
                                              "lastTimestamp", "firstTimestamp", "source") if k in obj}}
    if kind == "Node":
        labels = out["metadata"].get("labels")
        if isinstance(labels, dict):  # (one string for a value 20,000 nodes repeat: the model, the driver, "true")
            out["metadata"]["labels"] = {k: sys.intern(v) if type(v) is str else v for k, v in labels.items()}
        if isinstance(spec, dict):
            out["spec"] = {k: spec[k] for k in ("taints", "unschedulable", "providerID") if k in spec}
        if isinstance(status, dict):
            out["status"] = {k: status[k] for k in ("capacity", "allocatable", "conditions") if k in status}
            info = status.get("nodeInfo") if isinstance(status.get("nodeInfo"), dict) else {}
            if "kubeletVersion" in info:
                out["status"]["nodeInfo"] = {"kubeletVersion": info["kubeletVersion"]}
        return out
    if kind in ("ClusterPolicy", "NVIDIADriver", "GPUCluster"):
        if isinstance(spec, dict):  # what the checks read of the operator's settings
            plugin = spec.get("devicePlugin") if isinstance(spec.get("devicePlugin"), dict) else {}
            out["spec"] = {k: spec[k] for k in ("nodeSelector",) if k in spec}
            if isinstance(plugin.get("config"), dict):
                out["spec"]["devicePlugin"] = {"config": plugin["config"]}
        if status is not None:
            out["status"] = status
        return out
    return {**out, **{k: v for k, v in obj.items() if k not in ("apiVersion", "kind", "metadata")}}


def as_list(objects: list[dict], captured: set[str], notes: list[str], source: str) -> dict:
    """The snapshot file: a v1 List as kubectl prints one, with what was captured and what could not be read."""
    return {"apiVersion": "v1", "kind": "List",
            "metadata": {"annotations": {"gengpu.dev/snapshot-of": source,
                                         "gengpu.dev/captured": ",".join(sorted(captured)),
                                         **({"gengpu.dev/not-read": "; ".join(notes)} if notes else {})}},
            "items": objects}


def list_chunks(snapshot: dict):
    """The snapshot file's text, chunk by chunk: apiVersion, kind and metadata first (a reader sees what it is at
    once), then one object per line, each encoded by the json module's C encoder, so a 5,000-node capture is
    never held twice, as a whole text beside its objects."""
    import json

    head = {k: v for k, v in snapshot.items() if k != "items"}
    yield json.dumps(head)[:-1] + ', "items": [\n'
    items = snapshot["items"]
    for i, item in enumerate(items):
        yield json.dumps(item) + (",\n" if i < len(items) - 1 else "\n")
    yield "]}\n"
