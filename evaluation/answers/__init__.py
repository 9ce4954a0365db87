"""Answer-level data and splits: the public QA sets the answer scorer is fitted, chosen and
reported on (docs/ANSWER_MODEL.md)."""
