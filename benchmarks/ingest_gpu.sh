#!/usr/bin/env bash
# SciFact ingest on a GPU: `make setup-torch` (torch 2.13.0 from PyPI is its CUDA build on Linux
# x86_64), then one `--device cuda` build, its chunks/s and its vectors' cosine to the CPU fp32
# ones (>= 0.999 or exit 1), then the GPU test of tests/orchestration/kb/test_ingest_workers.py.
# Run from the repository root on a machine with a GPU: bash benchmarks/ingest_gpu.sh
set -euo pipefail
cd "$(dirname "$0")/.."
make setup-torch
.venv/bin/python -c 'import torch; assert torch.cuda.is_available(), "torch sees no GPU"; print(torch.cuda.get_device_name(0))'
.venv/bin/python -m benchmarks.ingest_gpu --json "$@"
.venv/bin/python -m pytest -q -p no:cacheprovider tests/orchestration/kb/test_ingest_workers.py -k cuda
