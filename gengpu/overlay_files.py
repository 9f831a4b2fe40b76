"""The files of a generated overlay that are not among its resources: the compiler writes them, the checker
knows them by name."""

OPERATOR_VALUES = "gpu-operator-values.yaml"  # the GPU Operator chart's values, an Argo CD helm source
DRA_VALUES = "dra-driver-values.yaml"  # the DRA driver chart's values, an Argo CD helm source
GKE_AUTOPROVISIONING = "gke-autoprovisioning.yaml"  # for gcloud, beside the overlay
CLUSTER_FILE = "gengpu-cluster.yaml"  # the ApplicationSet's parameters

# Checked on their own, not as documents of the overlay (the DRA values are: dra-chart-gpus-without-override).
NOT_DOCUMENTS = (GKE_AUTOPROVISIONING, CLUSTER_FILE, OPERATOR_VALUES)
