"""Metrics of running GPUs: dcgm-exporter series read from Prometheus or a recorded file (gengpu rightsize)."""
