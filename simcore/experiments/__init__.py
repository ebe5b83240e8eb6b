"""Many runs: sweeps over configurations and seeds, the reproduction study, worker pools."""
