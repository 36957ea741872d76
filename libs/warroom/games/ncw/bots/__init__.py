"""New Cold War's official bots (rulebook section 6, Annex IV) and the variants' own rules.

`flowchart` holds the seven-step OP flowchart, `board` the position a bot reads,
`data` the tables of content/bots.yaml and content/variants.yaml.
"""

from warroom.games.ncw.bots.policy import choose, choose_option

__all__ = ["choose", "choose_option"]
