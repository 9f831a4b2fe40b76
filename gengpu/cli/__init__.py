"""Command line: parse options, build the pieces, run. Heavy modules load inside the commands.

One module per group of commands: repository.py (build, validate, diff, plan, init), cluster.py (snapshot, check,
rightsize), catalogue.py (schema, rules, explain, catalog, mig, import); common.py holds what they share.
"""

from __future__ import annotations

import gc

import click

from gengpu import __version__
from gengpu.cli import catalogue, cluster, repository


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="gengpu")
def main():
    """Compile GPU profiles into Argo CD-ready Kustomize overlays, and validate GPU setups before they ship.

    \b
    gengpu init DIR --platform eks --gpu L4     start a GitOps repository
    gengpu build                                profiles/*.yaml -> overlays/<name>/ and argocd/
    gengpu build --check                        exit 1 with a diff when committed overlays are stale
    gengpu validate                             profiles, manifests, and overlays through kustomize + kubeconform
    gengpu diff --base origin/main              what a merge changes on each cluster
    gengpu mig check --gpu A100-40GB 3g.20gb=2  does a MIG layout fit
    gengpu explain RULE-ID                      why a rule exists and how to fix what it found
    """
    # A command builds many long-lived objects and frees few (a large cluster's pages, a repository's files): at
    # the default thresholds the cycle collector rescans them again and again, a third of a 20,000-node capture's
    # parse. Collections are made rarer, as mypy does; reference counting still frees all that holds no cycle.
    gc.set_threshold(200_000, 30, 30)


for command in (repository.build, repository.validate, repository.diff, repository.plan, repository.init,
                cluster.snapshot, cluster.check, cluster.rightsize,
                catalogue.schema, catalogue.rules, catalogue.explain, catalogue.catalog, catalogue.mig,
                catalogue.import_):
    main.add_command(command)
