"""Sightline as an MCP server (the official `mcp` SDK): tools `ask`, `search`, `list_knowledge_bases`.

- tools.py: the three tools as plain Python over one AnswerLoop and one caller (no SDK).
- server.py: the SDK's low-level Server announcing them, with their JSON Schemas.
- http.py: POST /mcp on the Flask app: the SDK's stateless streamable-HTTP transport, one request
  at a time, under the caller its API key makes (as POST /rag).
- stdio.py: `sightline mcp`: the same server over stdin/stdout, for one local caller.
"""
