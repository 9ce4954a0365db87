"""A build's Milvus collection: written from the local build's chunks, loaded, then aliased.

The local build stays the source of the chunk store, units and filter columns; the collection
holds what the engine searches (tokens for its BM25 function, vectors, filter fields, ACL
groups) under the same rows. Each build writes its own collection, `<collection>__<build id>`,
by upsert on chunk id (a retried batch never duplicates a chunk), loads it, and only then is the
alias `<collection>` moved to it in one call (`alter_alias`): an interrupted build drops its
own collection and leaves the alias where it was. A document removed from the inputs is in no
later build's collection, so it is gone once the alias moves. Collections of builds no longer
on disk are dropped after the switch (`prune_collections`).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from itertools import islice
from pathlib import Path
from typing import Any

import numpy as np

from ..retrieval.filters import CATEGORICAL, FilterColumns
from ..retrieval.milvus_client import connect, engine_text, schema, unavailable
from ..retrieval.tokenize import tokenize
from .config import MilvusSettings

UPSERT_BATCH = 512


def collection_of(settings: MilvusSettings, build_dir: Path) -> str:
    """The collection a build writes: the alias, '__', the build directory's name ('-' as '_')."""
    return f"{settings.collection}__{build_dir.name.replace('-', '_')}"


def _rows(texts: Sequence[tuple[int, str, str]], vectors: np.ndarray, columns: FilterColumns
          ) -> list[dict[str, Any]]:
    """The collection's entities of these chunks, given as (row, chunk id, indexed text), in the
    order given (fields: milvus_client.schema)."""
    entities = []
    for row, chunk_id, text in texts:
        entity: dict[str, Any] = {"chunk_id": chunk_id, "row": row,
                                  "tokens": engine_text(tokenize(text)),
                                  "dense": vectors[row].tolist(), "day": int(columns.day[row]),
                                  "acl": list(columns.acl_groups[int(columns.acl_code[row])]),
                                  "acl_code": int(columns.acl_code[row])}
        for name in CATEGORICAL:
            code = int(columns.codes[name][row])
            entity[name] = columns.vocab[name][code] if code >= 0 else ""
        entities.append(entity)
    return entities


def build_collection(kb: str, settings: MilvusSettings, build_dir: Path, texts: Iterable[tuple[int, str, str]],
                     vectors: np.ndarray, columns: FilterColumns) -> str:
    """Write and load the build's collection from every chunk's (row, chunk id, indexed text), in
    row order (`ChunkStore.iter_texts`), UPSERT_BATCH entities at a time; its name.

    Promises: on any failure the build's collection is dropped and the alias is untouched;
    SearchEngineUnavailable names the KB and the uri when the engine refuses a call.
    """
    name = collection_of(settings, build_dir)
    client = connect(kb, settings)
    try:
        fields, index = schema(int(vectors.shape[1]))
        if client.has_collection(name):
            client.drop_collection(name)
        client.create_collection(name, schema=fields)
        client.create_index(name, index, sync=False)  # load_collection waits for it (see docs/SCALE.md)
        chunks = iter(texts)
        while batch := list(islice(chunks, UPSERT_BATCH)):
            client.upsert(name, _rows(batch, vectors, columns))
        client.flush(name)
        client.load_collection(name)
    except Exception as exc:
        _drop_quietly(client, name)
        raise unavailable(kb, settings, exc) from exc
    except BaseException:  # an interrupt: nothing half-written stays
        _drop_quietly(client, name)
        raise
    finally:
        client.close()
    return name


def switch_alias(kb: str, settings: MilvusSettings, collection: str) -> None:
    """Point the alias at `collection` in one call (created the first time)."""
    client = connect(kb, settings)
    try:
        if settings.collection in client.list_aliases().get("aliases", []):
            client.alter_alias(collection, settings.collection)
        else:
            client.create_alias(collection, settings.collection)
    except Exception as exc:  # noqa: BLE001 - the engine's own errors, mapped to one
        raise unavailable(kb, settings, exc) from exc
    finally:
        client.close()


def prune_collections(kb: str, settings: MilvusSettings, kept: Sequence[str]) -> list[str]:
    """Drop this KB's build collections other than `kept` (the builds still on disk); the dropped."""
    client = connect(kb, settings)
    try:
        prefix = f"{settings.collection}__"
        stale = [c for c in client.list_collections() if c.startswith(prefix) and c not in kept]
        for name in stale:
            client.drop_collection(name)
    except Exception as exc:  # noqa: BLE001 - the engine's own errors, mapped to one
        raise unavailable(kb, settings, exc) from exc
    finally:
        client.close()
    return stale


def _drop_quietly(client: Any, name: str) -> None:
    """Drop a half-written collection; a failure here leaves it for `prune_collections`."""
    try:
        if client.has_collection(name):
            client.drop_collection(name)
    except Exception:  # noqa: BLE001, S110 - the build's own error is the one reported
        pass
