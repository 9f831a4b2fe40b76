"""What a rule looks at."""

PROFILE = "profile"
DEVICE_PLUGIN_CONFIG = "device-plugin-config"
MIG_PARTED_CONFIG = "mig-parted-config"
CLUSTER_POLICY = "clusterpolicy"
WORKLOAD = "workload"
OVERLAY = "overlay"  # cross-file checks over every document of a validate run

TARGETS = (PROFILE, DEVICE_PLUGIN_CONFIG, MIG_PARTED_CONFIG, CLUSTER_POLICY, WORKLOAD, OVERLAY)
