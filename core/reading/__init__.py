"""Reading text for what it states: quantities, units, dates, mentions of names and identifiers.

One reader per concept, used by every layer that reads sentences, so a claim and the chunk it
cites are read alike: the composer states what these readers find, and validation checks claims
with the same readers (issue 23: "up 7 km-wide" was 7 km to the validator and nothing to the
composer). It sits in core, below every agent, because perception, orchestration and validation
all read text and core is the one package each of them may import (DESIGN section 2 already
puts mention matching there); like the rest of core it imports nothing above it.

- `units`: the unit vocabulary and its canonical spellings ("公斤" -> "kg", "percent" -> "%").
- `dates`: calendar dates written in text (ISO, English month names, Chinese).
- `quantities`: numbers with their units, parts of codes and years left out.
- `measures`: a quantity with its full unit read from the words next to it ("kg per seat per hour").
- `mentions`: whether a text mentions a name ("737 MAX 8" meets "737-MAX-8", "B737" meets "737").
- `variants`: which model of a named thing a text writes ("737 MAX 8" where a question says "B737").
- `periods`: which year a figure is stated for (its unit's own year, else its heading's).
- `identifiers`: numbered names ("PEP 604", "Python 3.12"), operators ("|>"), options and setting
  keys ("--retry-lock", "installer.max-workers") as a text writes them.
- `polarity`: whether a clause of a statement is negated ("does not have a built-in way").

What a question asks is not read here (perception owns the question); these read statements.
"""
