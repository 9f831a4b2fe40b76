import difflib
import re

from gengpu.checking.rules.base import WORKLOAD, Hit, Rule
from gengpu.checking.subjects import group_version, table

# $(NAME), not the $$(NAME) escape; a NAME with a capital letter or an underscore is a variable, not a shell command
# substitution such as $(hostname) or $(nproc), which Kubernetes also passes on and the shell then runs
_REFERENCE = re.compile(r"(?<!\$)\$\(([A-Za-z_][A-Za-z0-9_]*)\)")


def _variable(name: str) -> bool:
    return "_" in name or any(c.isupper() for c in name)


def check(subject, ctx=None):
    group, _ = group_version(subject.data)
    injected = (table().get("injectedEnv") or {}).get(f"{group}/{subject.data.get('kind')}")
    if injected is None:
        return  # a kind whose operator may add variables gengpu does not know
    for path, container in subject.containers:
        if container.get("envFrom"):
            continue  # variables from a ConfigMap or Secret gengpu cannot see
        env = container.get("env") if isinstance(container.get("env"), list) else []
        defined = {e.get("name") for e in env if isinstance(e, dict)} | set(injected)
        for part in ("command", "args"):
            items = container.get(part)
            for i, item in enumerate(items if isinstance(items, list) else []):
                for name in _REFERENCE.findall(item) if isinstance(item, str) else []:
                    if name in defined or not _variable(name):
                        continue
                    close = difflib.get_close_matches(name, sorted(n for n in defined if isinstance(n, str)), n=1,
                                                      cutoff=0.8)
                    hint = f"; did you mean $({close[0]})?" if close else ""
                    yield Hit(path + (part, i), f"{subject.label}: container {container.get('name', '?')} refers to "
                              f"$({name}), which no variable of its env defines{_by(subject, injected)}: Kubernetes "
                              f"passes the text on as written{hint}")


def _by(subject, injected) -> str:
    if not injected:
        return ""
    return f" (and {subject.data.get('kind')} adds only {', '.join(injected)})"


RULE = Rule(
    id="env-reference-undefined",
    severity="error",
    summary="A $(VAR) in a GPU workload's command or args that no variable of the container defines.",
    fix="Define the variable in the container's env, or use the name the operator sets (LeaderWorkerSet: "
    "LWS_LEADER_ADDRESS, LWS_GROUP_SIZE, LWS_WORKER_INDEX; Kthena ModelServing: ENTRY_ADDRESS, GROUP_SIZE, "
    "WORKER_INDEX); write $$(...) for a literal.",
    explanation="Kubernetes expands $(VAR) in command and args to the value of the container's environment "
    "variable VAR, from its env (and envFrom) and what the workload's controller adds. A reference it cannot resolve "
    "is left unchanged: the program gets the text '$(VAR)', and under `sh -c` the shell runs VAR as a command and "
    "substitutes nothing. A multi-node engine then joins no leader (--ray_address=$(Leader_Node_Address)) or sizes "
    "its cluster from a misspelt variable ($(LWS_GROUP_SiZE)). Containers with envFrom, kinds whose operators add "
    "variables gengpu does not know, and lower-case names (shell command substitutions such as $(hostname)) are "
    "left alone.",
    source="Kubernetes API reference, Container.args ('Variable references $(VAR_NAME) are expanded using the "
    "container's environment. If a variable cannot be resolved, the reference in the input string will be "
    "unchanged'); kubernetes-sigs/lws v0.10.0 and volcano-sh/kthena v1.0.0 (the variables they add); "
    "volcano-sh/kthena issue 487",
    check=check,
    applies_to=WORKLOAD,
)
