import re

from gengpu.checking.rules.base import Hit, Rule

_COMMIT = re.compile(r"^[0-9a-f]{40}$")


def check(profile, ctx=None):
    revision = profile.gke.get("driverInstallerRevision") if profile.platform == "gke" else None
    if revision is not None and not _COMMIT.match(str(revision)):
        yield Hit(("spec", "gke", "driverInstallerRevision"),
                  f"spec.gke.driverInstallerRevision is {revision}, not a commit: Argo CD syncs whatever Google "
                  "pushes there next onto every GPU node, as a privileged DaemonSet")


RULE = Rule(
    id="gke-driver-installer-unpinned",
    severity="warning",
    summary="Google's GKE driver installer is synced from a branch or tag, not a commit.",
    fix="Leave spec.gke.driverInstallerRevision out (gengpu pins a commit it has read) or set a 40-character "
    "commit id of GoogleCloudPlatform/container-engine-accelerators.",
    explanation="The installer runs privileged on every GPU node of managed pools and decides which driver they "
    "get. A branch moves under a GitOps repository: a push upstream changes the nodes' driver with no pull request "
    "in yours, and a bad push reaches every cluster at once.",
    source="GoogleCloudPlatform/container-engine-accelerators nvidia-driver-installer; issue 11",
    check=check,
)
