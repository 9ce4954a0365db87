"""The answer scorer: the probability that a candidate unit answers the question, from a
logistic model fitted on public QA data (docs/ANSWER_MODEL.md)."""
