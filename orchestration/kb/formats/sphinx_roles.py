"""What a Sphinx role shows on its rendered page, read from the role's name and text.

The reST reader (`rst.py`) registers every role plain docutils does not know with this reading,
so a quoted sentence shows what a reader of the page sees, never the source's syntax:

- a titled reference shows its title: `:doc:`the testing guide </testing>`` -> "the testing guide";
- a Python (or JavaScript) object shows its name without the leading dot that only tells Sphinx
  to search from the current module, and under a `~` only its last part:
  `:attr:`.SessionMixin.permanent`` -> "SessionMixin.permanent", `:class:`~flask.Flask`` -> "Flask";
- a page shows its file's name, never its path (Sphinx shows the page's title, which another file
  holds): `:doc:`/blueprints`` -> "blueprints", `:doc:`tutorial/index`` -> "tutorial";
- an intersphinx inventory prefix is not shown: `:term:`typing:assignable`` -> "assignable";
- `!` (a name not linked) is not shown: `:func:`!flask.session`` -> "flask.session";
- a literal role shows its text as written (`:file:`.env`` keeps its dot, `:file:`~/.bashrc`` its
  tilde), except the braces that mark a sample's variable part: `:samp:`KEY = {value}`` -> "KEY = value".
"""

from __future__ import annotations

import re

_TITLED = re.compile(r"^(.*?)\s*<([^<>]+)>$", re.S)
# "typing:assignable", "py3.11:typing.dataclass_transform"; never C++'s "ns::name", never "Note: x"
_INVENTORY = re.compile(r"^[\w.+-]+:(?![:\s])")
# Roles of the Python and JavaScript domains (as `:attr:` or `:py:attr:`): a dot and `~` mean what they say above.
_OBJECT_ROLES = frozenset({"mod", "func", "data", "const", "class", "meth", "attr", "exc", "obj", "type"})
_OBJECT_DOMAINS = frozenset({"", "py", "js"})
# Sphinx's cross-reference roles that are not objects: their inventory prefix is not shown.
_REFERENCE_ROLES = frozenset({"doc", "ref", "term", "keyword", "option", "envvar", "numref", "token", "any",
                              "confval"})
# Roles whose text is shown as written (no link, so no title, `~` or `!` syntax).
_LITERAL_ROLES = frozenset({"file", "samp", "kbd", "command", "program", "regexp", "makevar", "mimetype",
                            "guilabel", "menuselection", "dfn", "manpage", "newsgroup"})
_SAMPLE_BRACE = re.compile(r"[{}]")


def role_text(name: str, text: str) -> str:
    """The text the role `name` (`attr`, `py:attr`, `doc` ...) shows for `text` (escapes already
    read) on the rendered page (see the module docstring); a role Sphinx does not define shows
    its title, or its text without a leading `~` or `!`."""
    domain, _, kind = name.lower().rpartition(":")
    if kind in _LITERAL_ROLES:
        return _SAMPLE_BRACE.sub("", text) if kind == "samp" else text
    titled = _TITLED.match(text)
    if titled and titled.group(1):
        return titled.group(1)
    if kind in _OBJECT_ROLES and domain in _OBJECT_DOMAINS:
        return _object_name(text)
    shown = text.lstrip("~!")
    if kind not in _REFERENCE_ROLES:
        return shown
    shown = _INVENTORY.sub("", shown)
    return _page_name(shown) if kind == "doc" else shown


def _object_name(text: str) -> str:
    """`.SessionMixin.permanent` -> SessionMixin.permanent, `~flask.Flask` -> Flask, `!x.y` -> x.y."""
    last_only = text.startswith("~")
    name = _INVENTORY.sub("", text.lstrip("~!")).lstrip(".")
    return name.rpartition(".")[2] if last_only else name


def _page_name(target: str) -> str:
    """A document's name from its path: `/blueprints` -> blueprints, `tutorial/index` -> tutorial."""
    parts = [part for part in target.split("/") if part not in ("", ".", "..")]
    if len(parts) > 1 and parts[-1] == "index":
        parts.pop()
    return parts[-1] if parts else target
