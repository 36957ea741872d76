"""New Cold War's official bots (rulebook section 6, Annex IV) and the variants' own rules.

`flowchart` holds the seven-step OP flowchart, `board` the position a bot reads,
`data` the tables of content/bots.yaml and content/variants.yaml, `hooks` the variants'
answers to the rules' questions. Importing the package installs `hooks` into the rules'
seam (`warroom.games.ncw.seam`): that is how the core reaches the bot seats.
"""

from warroom.games.ncw import seam
from warroom.games.ncw.bots import hooks
from warroom.games.ncw.bots.policy import choose, choose_option

seam.install(hooks)

__all__ = ["choose", "choose_option"]
