"""API keys: stored as sha256 hashes in config/api_keys.yaml, edited by `sightline keys`.

The file (path overridable by SIGHTLINE_API_KEYS) holds entries `{name, sha256, groups}`;
a key itself is never written anywhere: `sightline keys add` prints it once. Each process
re-reads the file when its stat changes (checked at most every `interval` seconds, before a
request), like router.yaml: a valid edit takes effect without a restart, an invalid one is
refused and logged, and the last good set of keys keeps serving.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import hmac
import logging
import os
import secrets
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from core.errors import ConfigError
from core.files import file_stat, write_atomically
from core.names import NAME_RULE, is_valid_name, parse_groups
from core.yamlconfig import parse_yaml
from orchestration import paths

log = logging.getLogger("sightline.keys")
KEYS_ENV = "SIGHTLINE_API_KEYS"
KEY_PREFIX = "sl_"
HEADER = ("# Sightline API keys (`sightline keys add NAME --groups G1,G2`, `keys list`, `keys remove NAME`).\n"
          "# Only the sha256 of each key is stored; a key is shown once, when it is created.\n")


def keys_path() -> Path:
    """$SIGHTLINE_API_KEYS, else api_keys.yaml in the config directory."""
    env = os.environ.get(KEYS_ENV)
    return Path(env) if env else paths.config_dir() / "api_keys.yaml"


def hash_key(key: str) -> str:
    """The hex sha256 of a key, as stored."""
    return hashlib.sha256(key.encode("utf-8")).hexdigest()


def new_key() -> str:
    """A fresh random key (256 bits from the OS's generator)."""
    return KEY_PREFIX + secrets.token_urlsafe(32)


@dataclass(frozen=True)
class KeyEntry:
    """One stored key: its name, the sha256 of the key, its ACL groups."""

    name: str
    sha256: str
    groups: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "sha256": self.sha256, "groups": list(self.groups)}


def parse_keys(data: Any, source: str) -> list[KeyEntry]:
    """Validate a parsed api_keys.yaml; ConfigError names the entry and the fix."""

    if data is None:
        return []
    if not isinstance(data, dict) or set(data) - {"keys"}:
        raise ConfigError(f"{source}: must be a mapping with one key, 'keys' (a list of entries)", field=source)
    items = data.get("keys") or []
    if not isinstance(items, list):
        raise ConfigError(f"{source}: keys: must be a list of {{name, sha256, groups}}", field="keys")
    entries: list[KeyEntry] = []
    names: set[str] = set()
    for index, item in enumerate(items):
        where = f"{source}: keys[{index}]"
        if not isinstance(item, dict) or set(item) - {"name", "sha256", "groups"}:
            raise ConfigError(f"{where}: must be a mapping of name, sha256 and groups", field=f"keys[{index}]")
        name, digest, groups = item.get("name"), item.get("sha256"), item.get("groups") or []
        if not isinstance(name, str) or not is_valid_name(name):
            raise ConfigError(f"{where}: name must be {NAME_RULE}", field=f"keys[{index}].name")
        if name in names:
            raise ConfigError(f"{where}: name '{name}' is listed twice; names are unique", field=f"keys[{index}].name")
        if not isinstance(digest, str) or len(digest) != 64 or any(c not in "0123456789abcdef" for c in digest):
            raise ConfigError(f"{where}: sha256 must be 64 lower-case hex digits (the hash of the key, never "
                              "the key itself)", field=f"keys[{index}].sha256")
        if not isinstance(groups, list) or not all(isinstance(g, str) for g in groups):
            raise ConfigError(f"{where}: groups must be a list of group names", field=f"keys[{index}].groups")
        try:
            parsed = parse_groups(",".join(groups), where)
        except ValueError as exc:
            raise ConfigError(str(exc), field=f"keys[{index}].groups") from None
        names.add(name)
        entries.append(KeyEntry(name, digest, parsed))
    return entries


def read_key_file(path: Path) -> bytes | None:
    """The key file's bytes; None when it does not exist (no keys); ConfigError when unreadable."""
    try:
        return path.read_bytes()
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read the API key file ({exc.strerror})", field=str(path)) from None


def parse_key_file(raw: bytes | None, source: str) -> list[KeyEntry]:
    """The entries of a key file's bytes (None: no file, no keys); ConfigError when invalid."""
    return [] if raw is None else parse_keys(parse_yaml(raw, source), source)


def read_keys(path: Path) -> list[KeyEntry]:
    """The entries of a key file (a missing file holds no keys); ConfigError when invalid."""
    return parse_key_file(read_key_file(path), str(path))


def write_keys(path: Path, entries: list[KeyEntry]) -> None:
    """Write the key file atomically (readers see the old or the new file), mode 0600."""
    import yaml


    path.parent.mkdir(parents=True, exist_ok=True)
    text = HEADER + yaml.safe_dump({"keys": [e.to_dict() for e in entries]}, sort_keys=False, allow_unicode=True)
    write_atomically(path, text)
    os.chmod(path, 0o600)


class KeyStore:
    """One process's view of the key file, reloaded when the file changes.

    Every process of a service serves one key set: the last valid content any of them read
    from the file. A process that reads the file does so under an exclusive lock on the
    service's snapshot (`snapshot`, in the state directory the gunicorn master made), and
    when the content is valid and new it writes it there; every process then adopts the
    snapshot. Reads happen in turn under the lock, so the snapshot always holds the newest
    valid content read. The gunicorn master does the same before each fork (`refresh`), so
    a worker started after `keys remove` and a bad edit serves the removal, never the keys
    the master loaded at start.

    Args:
        path: the key file.
        interval: seconds between stat checks (0: before every lookup).
        snapshot: the last good key file shared by a service's processes (None: this process alone).
    """

    def __init__(self, path: Path, interval: float = 2.0, snapshot: Path | None = None) -> None:
        self.path = Path(path)
        self.interval = interval
        self.snapshot = Path(snapshot) if snapshot else None
        self.last_error: str | None = None
        self._by_hash: dict[str, KeyEntry] = {}
        self._stat: tuple | None = None
        self._serving: str | None = None  # sha256 of the key file text serving now
        self._snapshot_stat: tuple | None = None  # the snapshot as last read or written here
        self._last_check = 0.0
        self._lock = threading.Lock()

    def load(self) -> None:
        """Read the file now; ConfigError when it is invalid (used at start: no last good set yet)."""
        with self._lock, self._shared():
            self._stat = self._stat_now()
            raw = read_key_file(self.path)
            self._serve(parse_key_file(raw, str(self.path)), raw)
            self._publish(raw)
            self._last_check = time.monotonic()
            self.last_error = None

    @property
    def names(self) -> list[str]:
        return sorted(e.name for e in self._by_hash.values())

    def _stat_now(self) -> tuple | None:
        return file_stat(self.path)

    def maybe_reload(self) -> None:
        """Re-check at most every `interval` seconds (cheap when nothing changed)."""
        if time.monotonic() - self._last_check < self.interval:
            return
        self.refresh()

    def refresh(self) -> None:
        """Read the file if its stat moved (refusing an invalid edit), then serve the service's last good set."""
        with self._lock, self._shared():
            self._last_check = time.monotonic()
            stat = self._stat_now()
            if stat != self._stat:
                self._stat = stat
                self._read_file()
            self._adopt_snapshot()

    def _read_file(self) -> None:
        """Validate the file; a valid one is served and published, an invalid one only noted."""
        try:
            raw = read_key_file(self.path)
            entries = parse_key_file(raw, str(self.path))
        except ConfigError as exc:
            if self.last_error != exc.message:
                log.error("API key file refused; the last good keys keep serving",
                          extra={"event": "keys_reload", "result": "error", "reason": exc.message})
            self.last_error = exc.message
            return
        self.last_error = None
        if self._serve(entries, raw):
            log.warning("API keys reloaded", extra={"event": "keys_reload", "result": "ok", "keys": len(entries)})
        self._publish(raw)

    def _serve(self, entries: list[KeyEntry], raw: bytes | None) -> bool:
        """Serve these entries; True when they differ from the set serving until now."""
        digest = hashlib.sha256(raw or b"").hexdigest()
        changed = digest != self._serving
        self._by_hash = {e.sha256: e for e in entries}
        self._serving = digest
        return changed

    # --- the service's shared last good key set --------------------------------------------

    @contextlib.contextmanager
    def _shared(self) -> Iterator[None]:
        """Hold the service-wide lock on the snapshot while the file is read and published."""
        if self.snapshot is None:
            yield
            return
        with open(self.snapshot.with_name(self.snapshot.name + ".lock"), "a") as handle:
            fcntl.flock(handle, fcntl.LOCK_EX)
            try:
                yield
            finally:
                fcntl.flock(handle, fcntl.LOCK_UN)

    def _publish(self, raw: bytes | None) -> None:
        """Make a valid content just read the service's last good key set (missing file: an empty one)."""
        if self.snapshot is None:
            return
        text = (raw or b"").decode("utf-8")
        try:
            if self.snapshot.exists() and self.snapshot.read_text(encoding="utf-8") == text:
                return
            write_atomically(self.snapshot, text)
            self._snapshot_stat = file_stat(self.snapshot)  # what this process serves: nothing to adopt
        except OSError as exc:
            log.error("cannot write the API key snapshot; other workers keep their keys",
                      extra={"event": "keys_snapshot", "error": str(exc)})

    def _adopt_snapshot(self) -> None:
        """Serve the service's last good key set when it differs from this process's."""
        if self.snapshot is None:
            return
        stat = file_stat(self.snapshot)
        if stat is None or stat == self._snapshot_stat:  # unchanged since this process last saw it
            return
        self._snapshot_stat = stat
        try:
            raw = self.snapshot.read_bytes()
        except FileNotFoundError:
            return
        except OSError as exc:
            log.error("cannot read the API key snapshot", extra={"event": "keys_snapshot", "error": str(exc)})
            return
        if hashlib.sha256(raw).hexdigest() == self._serving:
            return
        try:
            entries = parse_key_file(raw, str(self.snapshot))
        except ConfigError as exc:  # only valid text is ever written there; a damaged copy is not served
            log.error("API key snapshot unreadable; keeping this process's keys",
                      extra={"event": "keys_snapshot", "error": exc.message})
            return
        self._serve(entries, raw)
        log.warning("API keys taken from the service's last good set", extra={
            "event": "keys_reload", "result": "ok", "cause": "snapshot", "keys": len(entries)})

    def lookup(self, key: str) -> KeyEntry | None:
        """The entry whose hash matches `key`, or None (every entry compared in constant time)."""
        self.maybe_reload()
        digest = hash_key(key)
        found = None
        for stored, entry in list(self._by_hash.items()):
            if hmac.compare_digest(stored, digest):
                found = entry
        return found
