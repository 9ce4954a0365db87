"""Below every agent: the error tree and what all layers share. Imports nothing of ours."""
