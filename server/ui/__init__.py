"""The `/ui` pages' content: a stored trace turned into plain data for the templates
(server/templates/ui/), one concept per module: `page` assembles it, `highlight` marks the
supporting spans, `timeline` lays out the waterfall, `retrieval` and `attempts` explain the
searches, candidates, checks and retries. The HTTP side is server/http/ui.py."""
