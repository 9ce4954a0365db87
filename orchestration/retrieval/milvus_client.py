"""Connecting to Milvus for one knowledge base, and the collection's schema.

A `uri` that is a file path runs milvus-lite inside this process; `http(s)://host:19530` is a
cluster, whose token is read from the environment variable the KB's config names. Every call
used (docs/SCALE.md lists them) exists on a cluster with the same arguments.
"""

from __future__ import annotations

import os
import re
from typing import Any

from core.errors import SearchEngineUnavailable

from ..kb.config import MilvusSettings
from .bm25 import BM25Params

MAX_TEXT = 65535       # bytes of a VARCHAR field (the engine's limit)
MAX_GROUPS = 256       # ACL groups a chunk may carry
_PLAIN = re.compile(r"[a-z0-9]+")


def connect(kb: str, settings: MilvusSettings) -> Any:
    """A client for the KB's engine; SearchEngineUnavailable names the KB and the uri when none.

    Promises: a file path's parent directory exists before milvus-lite opens it.
    """
    from pymilvus import MilvusClient  # the `milvus` extra; imported only by a KB that uses it

    token = os.environ.get(settings.token_env, "") if settings.token_env else ""
    try:
        if "://" not in settings.uri:
            os.makedirs(os.path.dirname(settings.uri) or ".", exist_ok=True)
        return MilvusClient(uri=settings.uri, token=token)
    except Exception as exc:  # noqa: BLE001 - pymilvus and milvus-lite raise their own errors
        raise unavailable(kb, settings, exc) from exc


def unavailable(kb: str, settings: MilvusSettings, exc: BaseException) -> SearchEngineUnavailable:
    """The error of a failed engine call: the KB, the uri and the engine's own message."""
    return SearchEngineUnavailable(
        f"knowledge base '{kb}': the Milvus engine at {settings.uri} cannot be reached or refused a call "
        f"({type(exc).__name__}: {exc}); check that it runs"
        f"{f' and that ${settings.token_env} holds its token' if settings.token_env else ''}, then retry", field=kb)


def engine_token(token: str) -> str:
    """A Sightline token as one word every Milvus analyzer keeps whole.

    The engine's standard analyzer splits on anything but letters and digits (milvus-lite: `\\w+`
    lower-cased; a cluster: Unicode word boundaries, which also split Chinese into characters),
    so a token that is not plain lower-case ASCII letters and digits is written as `x_` and its
    UTF-8 hex ("leap-1a" -> "x_6c6561702d3161"): the engine then counts exactly Sightline's
    tokens (stemmed, stopwords removed, codes kept whole). Plain tokens never hold "_", so no
    encoded token equals a plain one.
    """
    return token if _PLAIN.fullmatch(token) else "x_" + token.encode("utf-8").hex()


def engine_text(tokens: list[str]) -> str:
    """Tokens as the text the engine's BM25 function analyses (one word per token)."""
    return " ".join(engine_token(t) for t in tokens)


def schema(dim: int) -> tuple[Any, Any]:
    """The collection's schema and index parameters for vectors of `dim` dimensions.

    Fields: chunk_id (primary key), row (the local build's row), tokens (Sightline's tokens,
    analysed by the BM25 function into `sparse`), dense (normalised vector, inner product,
    exact FLAT index as the local index below its HNSW threshold), day (epoch day, NO_DATE when
    undated), status / doc_type / source (lower-cased, "" when absent), acl (groups; empty =
    public) and acl_code (the build's code of that group list, `FilterColumns.acl_code`: the
    searches filter on it, since an array test costs milvus-lite 5-10x a scalar one). BM25's k1
    and b are Sightline's (BM25Params).
    """
    from pymilvus import DataType, Function, FunctionType, MilvusClient

    fields = MilvusClient.create_schema(auto_id=False, enable_dynamic_field=False)
    fields.add_field("chunk_id", DataType.VARCHAR, is_primary=True, max_length=1024)
    fields.add_field("row", DataType.INT64)
    fields.add_field("tokens", DataType.VARCHAR, max_length=MAX_TEXT, enable_analyzer=True,
                     analyzer_params={"tokenizer": "standard"})
    fields.add_field("sparse", DataType.SPARSE_FLOAT_VECTOR)
    fields.add_field("dense", DataType.FLOAT_VECTOR, dim=dim)
    fields.add_field("day", DataType.INT64)
    for name in ("status", "doc_type", "source"):
        fields.add_field(name, DataType.VARCHAR, max_length=1024)
    fields.add_field("acl", DataType.ARRAY, element_type=DataType.VARCHAR, max_capacity=MAX_GROUPS,
                     max_length=256)
    fields.add_field("acl_code", DataType.INT64)
    fields.add_function(Function(name="bm25", function_type=FunctionType.BM25, input_field_names=["tokens"],
                                 output_field_names=["sparse"]))
    params = BM25Params()
    index = MilvusClient.prepare_index_params()
    index.add_index("dense", index_type="FLAT", metric_type="IP")
    index.add_index("sparse", index_type="SPARSE_INVERTED_INDEX", metric_type="BM25",
                    params={"bm25_k1": params.k1, "bm25_b": params.b})
    return fields, index
