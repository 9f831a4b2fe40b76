"""Stage 4 and 5, render and check rendered: `kustomize build` piped into `kubeconform -strict`."""
