"""PEPs (real documentation): questions written by reading the Python Enhancement Proposals,
asked through the whole loop over a fixed subset of them (`sightline eval peps`).

  corpus   header fields to metadata, reStructuredText to plain text, JSONL documents
  subset   which PEPs the knowledge base holds (question targets + neighbouring distractors)
  scoring  the question file and the metrics (pure functions)
  run      building the KB, asking through AnswerLoop, the report entry (imported on use)
"""
