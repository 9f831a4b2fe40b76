"""gengpu: GPU sharing profiles → Argo CD-ready Kustomize overlays, validated."""

__version__ = "0.1.0"
