"""What a running cluster says about its GPUs: a snapshot (a `v1 List` of the objects the checks need, as `kubectl get
... -o yaml` prints it, or captured by `gengpu snapshot`) and the one module that talks to the API server."""
