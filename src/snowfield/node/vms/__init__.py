"""The VMs the node runs, one folder each as avalanchego's vms/: each one's factory (host.py),
runtime and services; the composition root lists the factories the node gets."""
